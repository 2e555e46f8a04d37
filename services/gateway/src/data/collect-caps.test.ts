import { admitted, dayKeyTtlSeconds } from './collect-caps';

describe('admitted', () => {
  it('when a count passes the cap, then only what fitted under it is admitted', () => {
    expect(admitted(3, 3, 10)).toBe(3);
    expect(admitted(3, 11, 10)).toBe(2);
    expect(admitted(3, 13, 10)).toBe(0);
    expect(admitted(3, 20, 10)).toBe(0);
  });
});

describe('dayKeyTtlSeconds', () => {
  it("when a day's counter is first counted, then it lives until a minute past the UTC day's end, never more than 24 h", () => {
    expect(dayKeyTtlSeconds(Date.parse('2026-11-28T23:59:00Z'))).toBe(120);
    expect(dayKeyTtlSeconds(Date.parse('2026-11-28T12:00:00Z'))).toBe(12 * 3600 + 60);
    expect(dayKeyTtlSeconds(Date.parse('2026-11-28T00:00:00Z'))).toBe(86_400);
    expect(dayKeyTtlSeconds(Date.parse('2026-11-28T00:00:30Z'))).toBe(86_400);
  });
});
