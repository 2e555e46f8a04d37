import { buildRangeIndex } from './range-index.js';

const r = (first: string, last: string, record: string) => ({ first, last, record });

describe('buildRangeIndex', () => {
  it('finds the range holding an address, at its first and last address and not beside it', () => {
    const index = buildRangeIndex([r('10.0.0.7', '10.0.1.250', 'a'), r('192.0.2.0', '192.0.2.255', 'b')]);
    expect(index.find('10.0.0.7')).toBe('a');
    expect(index.find('10.0.1.250')).toBe('a');
    expect(index.find('10.0.0.6')).toBeUndefined();
    expect(index.find('10.0.1.251')).toBeUndefined();
    expect(index.find('192.0.2.128')).toBe('b');
    expect(index.find('not an address')).toBeUndefined();
  });

  it('gives a nested range its addresses and the outer one the rest on both sides', () => {
    const index = buildRangeIndex([r('10.0.0.0', '10.255.255.255', 'outer'), r('10.1.0.0', '10.1.255.255', 'inner'), r('10.1.2.0', '10.1.2.255', 'innermost')]);
    expect(index.find('10.0.255.255')).toBe('outer');
    expect(index.find('10.1.0.0')).toBe('inner');
    expect(index.find('10.1.2.9')).toBe('innermost');
    expect(index.find('10.1.3.0')).toBe('inner');
    expect(index.find('10.2.0.0')).toBe('outer');
    expect(index.find('10.255.255.255')).toBe('outer');
    expect(index.size.v4).toBe(5);
  });

  it('gives two ranges of one start to the shorter, and an overlap to the range that starts later', () => {
    const index = buildRangeIndex([r('10.0.0.0', '10.0.0.255', 'long'), r('10.0.0.0', '10.0.0.15', 'short'), r('10.0.0.200', '10.0.1.10', 'late')]);
    expect(index.find('10.0.0.15')).toBe('short');
    expect(index.find('10.0.0.16')).toBe('long');
    expect(index.find('10.0.0.200')).toBe('late');
    expect(index.find('10.0.1.10')).toBe('late');
  });

  it('keeps IPv6 apart from IPv4 and finds ranges that are not CIDR-aligned', () => {
    const index = buildRangeIndex([r('2001:db8::5', '2001:db8:0:0:ffff::', 'v6'), r('0.0.0.5', '0.0.0.9', 'v4'), r('::', '::ff', 'low6')]);
    expect(index.find('2001:db8::5')).toBe('v6');
    expect(index.find('2001:db8::4')).toBeUndefined();
    expect(index.find('2001:db8::fffe:ffff:ffff:ffff')).toBe('v6');
    expect(index.find('2001:db8:0:0:ffff::1')).toBeUndefined();
    expect(index.find('0.0.0.7')).toBe('v4');
    expect(index.find('::7')).toBe('low6');
    expect(index.find('::ffff:0.0.0.7')).toBe('v4');
  });

  it('merges adjacent segments of one record and counts the ranges it could not read', () => {
    const shared = 'same';
    const index = buildRangeIndex([
      r('10.0.0.0', '10.0.0.255', shared),
      r('10.0.1.0', '10.0.1.255', shared),
      r('10.0.3.0', '10.0.2.0', 'backwards'),
      r('x', '10.0.0.1', 'bad'),
      r('10.0.0.1', '::1', 'mixed'),
    ]);
    expect(index.size).toEqual({ v4: 1, v6: 0 });
    expect(index.refused).toBe(3);
  });

  it('agrees with a linear scan on random nested ranges', () => {
    let seed = 7;
    const rnd = (n: number) => (seed = (seed * 1103515245 + 12345) % 2 ** 31) % n;
    const ranges: { s: number; e: number; id: string }[] = [];
    for (let i = 0; i < 300; i += 1) {
      const s = rnd(5000);
      ranges.push({ s, e: s + rnd(400), id: `r${i}` });
    }
    // Keep only properly nested or disjoint ranges, the shape of CIDR data.
    const nested = ranges.filter(
      (a, i) =>
        !ranges.slice(0, i).some((b) => a.s === b.s && a.e === b.e) &&
        ranges.slice(0, i).every((b) => a.e < b.s || a.s > b.e || (a.s >= b.s && a.e <= b.e) || (b.s >= a.s && b.e <= a.e)),
    );
    const ip = (n: number) => `10.0.${Math.floor(n / 256)}.${n % 256}`;
    const index = buildRangeIndex(nested.map((x) => r(ip(x.s), ip(x.e), x.id)));
    for (let n = 0; n < 5600; n += 1) {
      const holding = nested.filter((x) => x.s <= n && n <= x.e).sort((a, b) => a.e - a.s - (b.e - b.s) || b.s - a.s);
      expect([n, index.find(ip(n))]).toEqual([n, holding[0]?.id]);
    }
  });
});
