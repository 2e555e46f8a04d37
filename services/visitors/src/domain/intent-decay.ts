// The decay of an intent score, the one formula everything reads through. Every contribution loses
// half its points per half-life (the account's, 7 days by default), so a visitor's whole weighted sum
// decays at one rate: it is kept as `raw` as of `at`, and as a rank, log2(raw) + at / half-life (in
// seconds), which orders an account's visitors by their score at any later time. The score is the
// sum decayed to now, at most 100. Pure; the SQL of the same formula is data/intent-sql.ts.

export const DEFAULT_HALF_LIFE_DAYS = 7;
export const SCORE_MAX = 100;
const DAY_SECONDS = 86_400;

/** What one point at `at` is worth at `now` (1 at `at`, 0.5 one half-life later; never above 1). */
export function decayFactor(at: Date, now: Date, halfLifeDays: number): number {
  const elapsed = Math.max(0, (now.getTime() - at.getTime()) / 1000);
  return 2 ** (-elapsed / (halfLifeDays * DAY_SECONDS));
}

/** A weighted sum kept as of `at`, decayed to `now` (uncapped). */
export function rawNow(raw: number, at: Date | null, now: Date, halfLifeDays: number): number {
  return at === null || raw <= 0 ? 0 : raw * decayFactor(at, now, halfLifeDays);
}

/** The score now: the decayed sum, at most 100. */
export function scoreNow(raw: number, at: Date | null, now: Date, halfLifeDays: number): number {
  return Math.min(SCORE_MAX, rawNow(raw, at, now, halfLifeDays));
}

/** The rank stored beside raw: null without a score. */
export function intentRank(raw: number, at: Date | null, halfLifeDays: number): number | null {
  return at === null || raw <= 0 ? null : Math.log2(raw) + at.getTime() / 1000 / (halfLifeDays * DAY_SECONDS);
}
