import { isIP } from 'node:net';
import { parseAddress, parseIpv4, v6Value } from './ip-address.js';

describe('parseAddress', () => {
  it('reads IPv4 addresses as unsigned 32-bit numbers', () => {
    expect(parseIpv4('0.0.0.0')).toBe(0);
    expect(parseIpv4('255.255.255.255')).toBe(2 ** 32 - 1);
    expect(parseIpv4('81.2.69.142')).toBe(((81 * 256 + 2) * 256 + 69) * 256 + 142);
  });

  it('refuses what is not a dotted IPv4 address', () => {
    for (const bad of ['', '1.2.3', '1.2.3.4.5', '256.1.1.1', '01.2.3.4', '1..2.3', 'a.b.c.d', '1.2.3.4 ']) expect(parseIpv4(bad)).toBe(-1);
  });

  it('reads IPv6 addresses, with :: anywhere and a dotted IPv4 tail', () => {
    expect(parseAddress('::')).toEqual({ family: 6, hi: 0n, lo: 0n });
    expect(parseAddress('::1')).toEqual({ family: 6, hi: 0n, lo: 1n });
    expect(parseAddress('2001:db8::1')).toEqual({ family: 6, hi: 0x20010db800000000n, lo: 1n });
    expect(parseAddress('2001:db8:0:0:0:0:0:1')).toEqual(parseAddress('2001:db8::1'));
    const a = parseAddress('2a02:cf40:ffff:ffff:ffff:ffff:ffff:ffff');
    expect(a?.family === 6 && v6Value(a.hi, a.lo)).toBe(0x2a02cf40ffffffffffffffffffffffffn);
    expect(parseAddress('64:ff9b::1.2.3.4')).toEqual({ family: 6, hi: 0x0064ff9b00000000n, lo: 0x01020304n });
  });

  it('reads an IPv4-mapped IPv6 address as its IPv4 address', () => {
    expect(parseAddress('::ffff:81.2.69.142')).toEqual(parseAddress('81.2.69.142'));
    expect(parseAddress('::ffff:5102:458e')).toEqual(parseAddress('81.2.69.142'));
  });

  it('agrees with node:net on which strings are addresses', () => {
    const samples = [
      '1:2:3:4:5:6:7:8',
      '1::2::3',
      ':1',
      '1:',
      '12345::',
      '::ffff:1.2.3',
      'g::1',
      '1:2:3:4:5:6:7::',
      '::1.2.3.4',
      '1:2:3:4:5:6:1.2.3.4',
      '1:2:3:4:5:6:7:1.2.3.4',
    ];
    for (const s of samples) expect([s, parseAddress(s) !== null]).toEqual([s, isIP(s) !== 0]);
  });
});
