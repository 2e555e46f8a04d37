import { decayFactor, intentRank, rawNow, scoreNow } from './intent-decay';

const at = new Date('2026-11-01T00:00:00Z');
const days = (n: number) => new Date(at.getTime() + n * 86_400_000);

describe('the decay of an intent score', () => {
  it('when one half-life passes, then a point is worth half; two, a quarter; none before its time', () => {
    expect(decayFactor(at, days(7), 7)).toBeCloseTo(0.5, 10);
    expect(decayFactor(at, days(14), 7)).toBeCloseTo(0.25, 10);
    expect(decayFactor(at, days(-1), 7)).toBe(1);
    expect(decayFactor(at, days(3), 3)).toBeCloseTo(0.5, 10);
  });

  it('when the sum passes 100, then the score is 100 until it decays below', () => {
    expect(scoreNow(400, at, days(7), 7)).toBe(100);
    expect(scoreNow(400, at, days(21), 7)).toBeCloseTo(50, 8);
    expect(rawNow(400, at, days(7), 7)).toBeCloseTo(200, 8);
    expect(scoreNow(0, at, days(1), 7)).toBe(0);
    expect(scoreNow(10, null, days(1), 7)).toBe(0);
  });

  it('when two visitors are ranked, then the order of their ranks is the order of their scores at any later time', () => {
    const older = { raw: 60, at };
    const newer = { raw: 40, at: days(3) };
    const rank = (v: { raw: number; at: Date }) => intentRank(v.raw, v.at, 7)!;
    for (const now of [days(3), days(10), days(100)]) {
      const order = Math.sign(scoreNow(older.raw, older.at, now, 7) - scoreNow(newer.raw, newer.at, now, 7));
      expect(Math.sign(rank(older) - rank(newer))).toBe(order);
    }
    // And 2^(rank - now / half-life) is the raw sum now.
    expect(2 ** (rank(older) - days(7).getTime() / 1000 / (7 * 86_400))).toBeCloseTo(30, 8);
    expect(intentRank(0, at, 7)).toBeNull();
  });
});
