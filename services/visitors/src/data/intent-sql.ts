// The intent score in SQL, the formula of domain/intent-decay.ts: a profile's score now is
// 2^(intent_rank - now / half-life), at most 100, and 0 without a rank. The half-life is the
// account's (visitors.intent_settings, 7 days without a row).
import { DEFAULT_HALF_LIFE_DAYS, SCORE_MAX } from '../domain/intent-decay.js';

/** The half-life in seconds of the account of profile alias `p` (a scalar subquery: no join needed). */
export function halfLifeSecondsSql(p = 'p'): string {
  return `(COALESCE((SELECT s.half_life_days FROM intent_settings s WHERE s.account_id = ${p}.account_id), ${DEFAULT_HALF_LIFE_DAYS}) * 86400)`;
}

/**
 * The uncapped decayed sum of profile alias `p` now (what a company's visitors add up to).
 * `halfLife`: SQL of the half-life in seconds when the caller has it (a query over one account's
 * profiles), else the profile's account's.
 */
export function rawNowSql(p = 'p', now = 'now()', halfLife = halfLifeSecondsSql(p)): string {
  return `(CASE WHEN ${p}.intent_rank IS NULL THEN 0::float8 ELSE power(2::float8, ${p}.intent_rank - extract(epoch FROM ${now})::float8 / ${halfLife}) END)`;
}

/** The score now of profile alias `p`: 0 to 100. */
export function scoreNowSql(p = 'p', now = 'now()', halfLife = halfLifeSecondsSql(p)): string {
  return `LEAST(${SCORE_MAX}::float8, ${rawNowSql(p, now, halfLife)})`;
}
