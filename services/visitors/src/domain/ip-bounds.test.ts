import { addressValue, cidrBounds, formatAddress, rangeBounds } from './ip-bounds.js';
import { parseAddress } from './ip-address.js';

const value = (text: string) => addressValue(parseAddress(text)!);

describe('CIDR → first and last address', () => {
  it('gives the network and its broadcast address, whatever host bits the CIDR has', () => {
    expect(cidrBounds('203.0.113.0/24')).toEqual({ family: 4, first: '203.0.113.0', last: '203.0.113.255' });
    expect(cidrBounds('203.0.113.77/24')).toEqual(cidrBounds('203.0.113.0/24'));
    expect(cidrBounds('0.0.0.0/0')).toEqual({ family: 4, first: '0.0.0.0', last: '255.255.255.255' });
    expect(cidrBounds('2001:db8::/32')).toEqual({ family: 6, first: '2001:db8:0:0:0:0:0:0', last: '2001:db8:ffff:ffff:ffff:ffff:ffff:ffff' });
  });

  it('reads a bare address as a one-address range, and a mapped IPv4 network as IPv4', () => {
    expect(cidrBounds('192.0.2.7')).toEqual({ family: 4, first: '192.0.2.7', last: '192.0.2.7' });
    expect(cidrBounds('2001:db8::1')).toEqual({ family: 6, first: '2001:db8:0:0:0:0:0:1', last: '2001:db8:0:0:0:0:0:1' });
    expect(cidrBounds('::ffff:192.0.2.0/120')).toEqual(cidrBounds('192.0.2.0/24'));
  });

  it('refuses a prefix too long, a bad address or a stray part', () => {
    for (const bad of ['10.0.0.0/33', '2001:db8::/129', '300.1.1.0/24', '10.0.0.0/x', '10.0.0.0/24/1', '', 'fe80::1%eth0/64', '::ffff:1.2.3.4/64']) {
      expect(cidrBounds(bad)).toHaveProperty('error');
    }
  });
});

describe('start..end → first and last address', () => {
  it('takes ranges of any alignment, IPv4 and IPv6, as written; a mapped IPv4 address as IPv4', () => {
    expect(rangeBounds('1.0.0.7', '1.0.3.250')).toEqual({ family: 4, first: '1.0.0.7', last: '1.0.3.250' });
    expect(rangeBounds(' 2001:db8::5 ', '2001:db8::1:3')).toEqual({ family: 6, first: '2001:db8::5', last: '2001:db8::1:3' });
    expect(rangeBounds('10.0.0.1', '10.0.0.1')).toEqual({ family: 4, first: '10.0.0.1', last: '10.0.0.1' });
    expect(rangeBounds('::ffff:10.0.0.1', '::ffff:a00:2')).toEqual({ family: 4, first: '10.0.0.1', last: '10.0.0.2' });
  });

  it('compares IPv6 addresses by value, across the high and low halves', () => {
    expect(rangeBounds('2001:db8::ffff:ffff:ffff:ffff', '2001:db8:0:1::')).toHaveProperty('first');
    expect(rangeBounds('2001:db8:0:1::', '2001:db8::ffff:ffff:ffff:ffff')).toEqual({ error: 'start is after end' });
  });

  it('refuses a bad address, start after end and mixed families', () => {
    expect(rangeBounds('1.0.0.256', '1.0.0.1')).toEqual({ error: 'start: not an IPv4 or IPv6 address' });
    expect(rangeBounds('1.0.0.1', 'nope')).toEqual({ error: 'end: not an IPv4 or IPv6 address' });
    expect(rangeBounds('1.0.0.9', '1.0.0.1')).toEqual({ error: 'start is after end' });
    expect(rangeBounds('1.0.0.1', '2001:db8::1')).toEqual({ error: 'start and end are of different families (IPv4 and IPv6)' });
  });
});

describe('formatAddress', () => {
  it('writes a value as text Postgres reads as inet', () => {
    expect(formatAddress(4, value('81.2.69.142'))).toBe('81.2.69.142');
    expect(formatAddress(4, 0xffffffff)).toBe('255.255.255.255');
    expect(formatAddress(6, value('2001:db8::1'))).toBe('2001:db8:0:0:0:0:0:1');
    expect(value(formatAddress(6, value('2a02:cf40:ffff::12')))).toBe(value('2a02:cf40:ffff::12'));
  });
});
