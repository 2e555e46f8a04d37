// The members of a segment now, as SQL over visitor_profiles (the filter's conditions are
// domain/segment-filter.ts's; the score is intent-sql.ts's).
import { halfLifeSecondsSql, rawNowSql, scoreNowSql } from './intent-sql.js';
import { visitorConditions, type SegmentFilter, type SegmentKind, type SqlPart } from '../domain/segment-filter.js';

/**
 * The members now of a segment as SQL: rows (key, score, raw) where key is the visitor id or the
 * company key and score the score now (0 to 100, a float). $1 is the account, $2 now (timestamptz),
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
      sql: `SELECT p.id::text AS key, ${scoreNowSql('p', now)} AS score, ${rawNowSql('p', now)} AS raw
            FROM visitor_profiles p
            WHERE p.account_id = $1::uuid AND ($3::text[] IS NULL OR p.company_key = ANY($3::text[]))${minScore} AND ${cond.sql}`,
      params,
    };
  }
  params.push(f.min_score ?? 0);
  const n = `$${4 + params.length - 1}::float8`;
  return {
    sql: `SELECT p.company_key AS key, LEAST(100::float8, sum(${rawNowSql('p', now)})) AS score, sum(${rawNowSql('p', now)}) AS raw
          FROM visitor_profiles p
          WHERE p.account_id = $1::uuid AND p.company_key IS NOT NULL AND ($3::text[] IS NULL OR p.company_key = ANY($3::text[]))
          GROUP BY p.company_key
          HAVING bool_or(${cond.sql}) AND LEAST(100::float8, sum(${rawNowSql('p', now)})) >= ${n}`,
    params,
  };
}
