// Billing in one statement (so one atomic transaction): take a credit when the account has one
// left (or no limit), and add one identity match and one enriched record to today's usage.
import type { Db } from '@glimpse/db';

export async function chargeEnrichment(db: Db, accountId: string, now = new Date()): Promise<boolean> {
  const day = now.toISOString().slice(0, 10);
  const rows = await db.$queryRaw<{ account_id: string }[]>`
    WITH charged AS (
      UPDATE accounts SET credits_used = credits_used + 1
      WHERE id = ${accountId}::uuid AND (credit_limit IS NULL OR credits_used < credit_limit)
      RETURNING id
    )
    INSERT INTO usage_days (account_id, day, identity_matches, enriched_records)
    SELECT id, ${day}::date, 1, 1 FROM charged
    ON CONFLICT (account_id, day) DO UPDATE SET
      identity_matches = usage_days.identity_matches + 1,
      enriched_records = usage_days.enriched_records + 1
    RETURNING account_id`;
  return rows.length === 1;
}

export interface UsageTotals {
  identityMatches: number;
  enrichedRecords: number;
}

export async function usageTotals(db: Db, accountId: string): Promise<UsageTotals> {
  const sum = await db.usageDay.aggregate({ where: { accountId }, _sum: { identityMatches: true, enrichedRecords: true } });
  return { identityMatches: sum._sum.identityMatches ?? 0, enrichedRecords: sum._sum.enrichedRecords ?? 0 };
}

export async function usageByDay(db: Db, accountId: string): Promise<({ day: string } & UsageTotals)[]> {
  const rows = await db.usageDay.findMany({ where: { accountId }, orderBy: { day: 'asc' } });
  return rows.map((r) => ({ day: r.day.toISOString().slice(0, 10), identityMatches: r.identityMatches, enrichedRecords: r.enrichedRecords }));
}

/** Sets (or, with null, removes) the account's credit limit; false when the account does not exist. */
export async function setCreditLimit(db: Db, accountId: string, limit: number | null): Promise<boolean> {
  const { count } = await db.account.updateMany({ where: { id: accountId }, data: { creditLimit: limit } });
  return count === 1;
}

/** The days with usage from `from` to `to` (inclusive, YYYY-MM-DD), oldest first. */
export async function usageBetween(db: Db, accountId: string, from: string, to: string): Promise<({ day: string } & UsageTotals)[]> {
  const rows = await db.usageDay.findMany({
    where: { accountId, day: { gte: new Date(`${from}T00:00:00.000Z`), lte: new Date(`${to}T00:00:00.000Z`) } },
    orderBy: { day: 'asc' },
  });
  return rows.map((r) => ({ day: r.day.toISOString().slice(0, 10), identityMatches: r.identityMatches, enrichedRecords: r.enrichedRecords }));
}
