// Billable usage: the ledger (one row per billed lookup, appended) rolled up into usage_days.
// Reads sum the two, so usage is exact the moment a lookup is answered.
import { ADVISORY_LOCKS } from '@glimpse/db';
import { type Db } from '@glimpse/db/enrichment';
import type { UsageStore, UsageTotals } from '../domain/usage.js';
import { billedPersonsIn } from './billed-person-repository.js';

interface DayRow {
  day: string;
  identityMatches: number;
  enrichedRecords: number;
}

/** The days with usage from `from` to `to` (inclusive, YYYY-MM-DD), oldest first. */
export async function usageBetween(db: Db, accountId: string, from: string, to: string): Promise<({ day: string } & UsageTotals)[]> {
  // Every billed lookup is one identity match and one enriched record: a ledger row counts as both.
  return db.$queryRaw<DayRow[]>`
    SELECT to_char(day, 'YYYY-MM-DD') AS day, sum(m)::float8 AS "identityMatches", sum(r)::float8 AS "enrichedRecords" FROM (
      SELECT day, identity_matches AS m, enriched_records AS r FROM usage_days
      WHERE account_id = ${accountId}::uuid AND day BETWEEN ${from}::date AND ${to}::date
      UNION ALL
      SELECT day, count(*), count(*) FROM usage_ledger
      WHERE account_id = ${accountId}::uuid AND day BETWEEN ${from}::date AND ${to}::date GROUP BY day
    ) AS u GROUP BY day ORDER BY day`;
}

export async function usageTotals(db: Db, accountId: string): Promise<UsageTotals> {
  const [row] = await db.$queryRaw<UsageTotals[]>`
    SELECT coalesce(sum(m), 0)::float8 AS "identityMatches", coalesce(sum(r), 0)::float8 AS "enrichedRecords" FROM (
      SELECT identity_matches AS m, enriched_records AS r FROM usage_days WHERE account_id = ${accountId}::uuid
      UNION ALL
      SELECT count(*), count(*) FROM usage_ledger WHERE account_id = ${accountId}::uuid
    ) AS u`;
  return row!;
}

/**
 * Moves up to `limit` ledger rows into usage_days in one statement (so nothing is counted twice or
 * lost), skipping rows of active credit leases (their count is what the lease has spent), and
 * drops leases long expired. Returns the rows moved; 0 when another process holds the roll-up.
 */
export async function rollUpUsage(db: Db, limit = 50_000): Promise<number> {
  const [row] = await db.$queryRaw<{ moved: number }[]>`
    WITH lock AS (SELECT pg_try_advisory_xact_lock(${ADVISORY_LOCKS.usageRollup}::bigint) AS held),
    moved AS (
      DELETE FROM usage_ledger u USING lock
      WHERE lock.held AND u.ctid = ANY(ARRAY(
        SELECT r.ctid FROM usage_ledger r
        WHERE r.lease_id IS NULL OR NOT EXISTS (SELECT 1 FROM credit_leases l WHERE l.id = r.lease_id AND l.expires_at > now())
        LIMIT ${limit}))
      RETURNING u.account_id, u.day
    ), counted AS (
      SELECT account_id, day, count(*)::int AS n FROM moved GROUP BY account_id, day
    ), added AS (
      -- An account's deletion (the accounts topic) removes its usage rows, these included.
      INSERT INTO usage_days (account_id, day, identity_matches, enriched_records)
      SELECT c.account_id, c.day, c.n, c.n FROM counted c
      ON CONFLICT (account_id, day) DO UPDATE SET
        identity_matches = usage_days.identity_matches + EXCLUDED.identity_matches,
        enriched_records = usage_days.enriched_records + EXCLUDED.enriched_records
    ), swept AS (
      DELETE FROM credit_leases USING lock WHERE lock.held AND expires_at < now() - interval '1 day'
    )
    SELECT count(*)::int AS moved FROM moved`;
  return row?.moved ?? 0;
}

/** The usage answers' store (domain/usage.ts) on Postgres. */
export function usageStore(db: Db): UsageStore {
  return {
    usageBetween: (accountId, from, to) => usageBetween(db, accountId, from, to),
    billedPersonsIn: (accountId, period) => billedPersonsIn(db, accountId, period),
  };
}
