// The members of a segment now, as SQL over visitor_profiles (the filter's conditions are
// domain/segment-filter.ts's; the score is intent-sql.ts's).
import { SCORE_MAX } from '../domain/intent-decay.js';
import { rawNowSql, scoreNowSql } from './intent-sql.js';
import { visitorConditions, type SegmentFilter, type SegmentKind, type SqlPart } from '../domain/segment-filter.js';

/** Below any rank: a member without a score (JSON has no -Infinity for the cursor). */
export const NO_RANK = -1e300;
const DAY_SECONDS = 86_400;

/**
 * The members now of a segment as SQL: rows (key, score, raw, rank) where key is the visitor id or
 * the company key, score the score now (0 to 100, a float) and rank what orders them at any time
 * (every score of an account decays at one rate: log2 of the sum now + now / half-life, the stored
 * intent_rank of a visitor; a company's rounded to 1e-9 so that two reads agree), for paging.
 * $1 is the account, $2 now (timestamptz), $3 the keys (text[], or null for none stored), $4 the
 * account's half-life in seconds; more from $5 (the returned params). For visitors, a score at least
 * min_score is a bound on intent_rank computed here (score >= n <=> rank >= log2(n) + now /
 * half-life), a value Postgres plans with, so the (account_id, intent_rank) index serves it.
 */
export function segmentMembersSql(kind: SegmentKind, f: SegmentFilter, halfLifeDays: number, at: Date): SqlPart {
  const now = '$2::timestamptz';
  const halfLife = '$4::float8';
  const cond = visitorConditions(f, 5, now);
  const params = [...cond.params];
  const param = (v: unknown) => {
    params.push(v);
    return `$${5 + params.length - 1}::float8`;
  };
  if (kind === 'visitors') {
    const minScore =
      f.min_score !== undefined && f.min_score > 0
        ? ` AND p.intent_rank >= ${param(Math.log2(Math.min(f.min_score, SCORE_MAX)) + at.getTime() / 1000 / (halfLifeDays * DAY_SECONDS))}`
        : '';
    return {
      sql: `SELECT p.id::text AS key, ${scoreNowSql('p', now, halfLife)} AS score, ${rawNowSql('p', now, halfLife)} AS raw, COALESCE(p.intent_rank, ${NO_RANK}::float8) AS rank
            FROM visitor_profiles p
            WHERE p.account_id = $1::uuid AND ($3::text[] IS NULL OR p.company_key = ANY($3::text[]))${minScore} AND ${cond.sql}`,
      params,
    };
  }
  const n = param(f.min_score ?? 0);
  return {
    sql: `SELECT c.key, LEAST(${SCORE_MAX}::float8, c.raw) AS score, c.raw,
            CASE WHEN c.raw > 0 THEN round((ln(c.raw) / ln(2::float8) + extract(epoch FROM ${now})::float8 / ${halfLife})::numeric, 9)::float8 ELSE ${NO_RANK}::float8 END AS rank
          FROM (SELECT p.company_key AS key, sum(${rawNowSql('p', now, halfLife)}) AS raw, bool_or(${cond.sql}) AS matched
                FROM visitor_profiles p
                WHERE p.account_id = $1::uuid AND p.company_key IS NOT NULL AND ($3::text[] IS NULL OR p.company_key = ANY($3::text[]))
                GROUP BY p.company_key) c
          WHERE c.matched AND LEAST(${SCORE_MAX}::float8, c.raw) >= ${n}`,
    params,
  };
}
