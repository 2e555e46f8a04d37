import { cidrBounds, formatAddress, parseAddress, rangeBounds } from './ip-bounds.js';

const v4 = (text: string) => parseAddress(text)!.value;
const v6 = (text: string) => parseAddress(text)!.value;

describe('CIDR → first and last address', () => {
  it('gives the network and its broadcast address, whatever host bits the CIDR has', () => {
    expect(cidrBounds('203.0.113.0/24')).toEqual({ family: 4, first: v4('203.0.113.0'), last: v4('203.0.113.255') });
    expect(cidrBounds('203.0.113.77/24')).toEqual(cidrBounds('203.0.113.0/24'));
    expect(cidrBounds('0.0.0.0/0')).toEqual({ family: 4, first: 0n, last: 0xffffffffn });
    expect(cidrBounds('2001:db8::/32')).toEqual({ family: 6, first: v6('2001:db8::'), last: v6('2001:db8:ffff:ffff:ffff:ffff:ffff:ffff') });
  });

  it('reads a bare address as a one-address range, and a mapped IPv4 network as IPv4', () => {
    expect(cidrBounds('192.0.2.7')).toEqual({ family: 4, first: v4('192.0.2.7'), last: v4('192.0.2.7') });
    expect(cidrBounds('2001:db8::1')).toEqual({ family: 6, first: v6('2001:db8::1'), last: v6('2001:db8::1') });
    expect(cidrBounds('::ffff:192.0.2.0/120')).toEqual(cidrBounds('192.0.2.0/24'));
  });

  it('refuses a prefix too long, a bad address or a stray part', () => {
    for (const bad of ['10.0.0.0/33', '2001:db8::/129', '300.1.1.0/24', '10.0.0.0/x', '10.0.0.0/24/1', '', 'fe80::1%eth0/64', '::ffff:1.2.3.4/64']) {
      expect(cidrBounds(bad)).toHaveProperty('error');
    }
  });
});

describe('start..end → first and last address', () => {
  it('takes ranges of any alignment, IPv4 and IPv6', () => {
    expect(rangeBounds('1.0.0.7', '1.0.3.250')).toEqual({ family: 4, first: v4('1.0.0.7'), last: v4('1.0.3.250') });
    expect(rangeBounds(' 2001:db8::5 ', '2001:db8::1:3')).toEqual({ family: 6, first: v6('2001:db8::5'), last: v6('2001:db8::1:3') });
    expect(rangeBounds('10.0.0.1', '10.0.0.1')).toEqual({ family: 4, first: v4('10.0.0.1'), last: v4('10.0.0.1') });
  });

  it('refuses a bad address, start after end and mixed families', () => {
    expect(rangeBounds('1.0.0.256', '1.0.0.1')).toEqual({ error: 'start: not an IPv4 or IPv6 address' });
    expect(rangeBounds('1.0.0.1', 'nope')).toEqual({ error: 'end: not an IPv4 or IPv6 address' });
    expect(rangeBounds('1.0.0.9', '1.0.0.1')).toEqual({ error: 'start is after end' });
    expect(rangeBounds('1.0.0.1', '2001:db8::1')).toEqual({ error: 'start and end are of different families (IPv4 and IPv6)' });
  });
});

describe('formatAddress', () => {
  it('writes what it read, as text Postgres reads as inet', () => {
    expect(formatAddress(4, v4('81.2.69.142'))).toBe('81.2.69.142');
    expect(formatAddress(4, 0xffffffffn)).toBe('255.255.255.255');
    expect(formatAddress(6, v6('2001:db8::1'))).toBe('2001:db8:0:0:0:0:0:1');
    expect(parseAddress(formatAddress(6, v6('2a02:cf40:ffff::12')))).toEqual(parseAddress('2a02:cf40:ffff::12'));
  });
});
