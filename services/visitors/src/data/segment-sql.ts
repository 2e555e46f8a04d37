// The members of a segment now, as SQL over visitor_profiles (the filter's conditions are
// domain/segment-filter.ts's; the score is intent-sql.ts's).
import { DEFAULT_HALF_LIFE_DAYS } from '../domain/intent-decay.js';
import { halfLifeSecondsSql, rawNowSql, scoreNowSql } from './intent-sql.js';
import { visitorConditions, type SegmentFilter, type SegmentKind, type SqlPart } from '../domain/segment-filter.js';

/** Below any rank: a member without a score (JSON has no -Infinity for the cursor). */
export const NO_RANK = -1e300;

/**
 * The members now of a segment as SQL: rows (key, score, raw, rank) where key is the visitor id or
 * the company key, score the score now (0 to 100, a float) and rank what orders them at any time
 * (every score of an account decays at one rate: log2 of the sum now + now / half-life, the stored
 * intent_rank of a visitor; a company's rounded to 1e-9 so that two reads agree), for paging. $1 is the account, $2 now (timestamptz),
 * $3 the keys (text[], or null for none stored); more from $4. For visitors, score at least
 * min_score is also written as a bound on intent_rank, which the (account_id, intent_rank) index serves.
 */
export function segmentMembersSql(kind: SegmentKind, f: SegmentFilter): SqlPart {
  const now = '$2::timestamptz';
  const cond = visitorConditions(f, 4, now);
  const params = [...cond.params];
  if (kind === 'visitors') {
    let minScore = '';
    if (f.min_score !== undefined && f.min_score > 0) {
      params.push(f.min_score);
      const n = `$${4 + params.length - 1}::float8`;
      // score >= n  <=>  rank >= log2(n) + now / half-life (the rank's definition), when n <= 100.
      minScore = ` AND p.intent_rank >= ln(${n}) / ln(2::float8) + extract(epoch FROM ${now})::float8 / ${halfLifeSecondsSql('p')}`;
    }
    return {
      sql: `SELECT p.id::text AS key, ${scoreNowSql('p', now)} AS score, ${rawNowSql('p', now)} AS raw, COALESCE(p.intent_rank, ${NO_RANK}::float8) AS rank
            FROM visitor_profiles p
            WHERE p.account_id = $1::uuid AND ($3::text[] IS NULL OR p.company_key = ANY($3::text[]))${minScore} AND ${cond.sql}`,
      params,
    };
  }
  // The account's half-life once (the groups' rows are all the account's).
  const accountHalfLifeSeconds = `(COALESCE((SELECT s.half_life_days FROM intent_settings s WHERE s.account_id = $1::uuid), ${DEFAULT_HALF_LIFE_DAYS}) * 86400)`;
  params.push(f.min_score ?? 0);
  const n = `$${4 + params.length - 1}::float8`;
  return {
    sql: `SELECT p.company_key AS key, LEAST(100::float8, sum(${rawNowSql('p', now)})) AS score, sum(${rawNowSql('p', now)}) AS raw,
            CASE WHEN sum(${rawNowSql('p', now)}) > 0 THEN round((ln(sum(${rawNowSql('p', now)})) / ln(2::float8)
              + extract(epoch FROM ${now})::float8 / ${accountHalfLifeSeconds})::numeric, 9)::float8 ELSE ${NO_RANK}::float8 END AS rank
          FROM visitor_profiles p
          WHERE p.account_id = $1::uuid AND p.company_key IS NOT NULL AND ($3::text[] IS NULL OR p.company_key = ANY($3::text[]))
          GROUP BY p.company_key
          HAVING bool_or(${cond.sql}) AND LEAST(100::float8, sum(${rawNowSql('p', now)})) >= ${n}`,
    params,
  };
}
