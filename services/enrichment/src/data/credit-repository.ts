// Credit limits and credit leases (see domain/credits.ts for how a process spends a lease).
import { randomUUID } from 'node:crypto';
import type { Db } from '@glimpse/db/enrichment';
import type { CreditStore, LeaseOutcome } from '../domain/credits.js';

/** The account's credit limit; null when it has none. */
export async function creditLimitOf(db: Db, accountId: string): Promise<number | null> {
  const [row] = await db.$queryRaw<{ limit: number | null }[]>`SELECT credit_limit AS "limit" FROM enrichment_credits WHERE account_id = ${accountId}::uuid`;
  return row?.limit ?? null;
}

/**
 * Grants a lease of credits when the account has any left: at most `maxGrant`, and an eighth of
 * what is left (at least one), so near the end every process still gets some. Serialized per
 * account by the lock on its credit row. What is committed is exact at any moment: everything
 * billed (usage_days and the ledger) plus what active leases have not spent yet (each lease's
 * grant less its ledger rows). An expired lease counts only what it spent, so a process that dies
 * holding one loses nothing for longer than the lease's life.
 */
export async function leaseCredits(db: Db, accountId: string, { ttlMs, maxGrant }: { ttlMs: number; maxGrant: number }): Promise<LeaseOutcome> {
  return db.$transaction(async (tx) => {
    const [credit] = await tx.$queryRaw<{ limit: number | null }[]>`
      SELECT credit_limit AS "limit" FROM enrichment_credits WHERE account_id = ${accountId}::uuid FOR UPDATE`;
    if (!credit || credit.limit === null) return { kind: 'unlimited' };
    const [row] = await tx.$queryRaw<{ committed: number }[]>`
      SELECT ((SELECT coalesce(sum(enriched_records), 0) FROM usage_days WHERE account_id = ${accountId}::uuid)
        + (SELECT count(*) FROM usage_ledger WHERE account_id = ${accountId}::uuid)
        + (SELECT coalesce(sum(GREATEST(l.granted - (SELECT count(*) FROM usage_ledger u WHERE u.lease_id = l.id), 0)), 0)
           FROM credit_leases l WHERE l.account_id = ${accountId}::uuid AND l.expires_at > now()))::float8 AS committed`;
    const left = credit.limit - row!.committed;
    if (left <= 0) return { kind: 'exhausted' };
    const granted = Math.min(maxGrant, Math.max(1, Math.ceil(left / 8)));
    const leaseId = randomUUID();
    await tx.$executeRaw`
      INSERT INTO credit_leases (id, account_id, granted, expires_at)
      VALUES (${leaseId}::uuid, ${accountId}::uuid, ${granted}, now() + ${ttlMs} * interval '1 millisecond')`;
    return { kind: 'granted', leaseId, granted, remaining: left - granted };
  });
}

/** Ends leases early: what they did not spend is free again. Only for leases with nothing in flight. */
export async function endLeases(db: Db, leaseIds: string[]): Promise<void> {
  if (leaseIds.length === 0) return;
  await db.$executeRaw`UPDATE credit_leases SET expires_at = now() WHERE id = ANY(${leaseIds}::uuid[]) AND expires_at > now()`;
}

/**
 * Sets (or, with null, removes) the account's credit limit. Accounts are the identity part's: the
 * caller has checked the account there (the gateway authenticated it, or its operator API found it).
 */
export async function setCreditLimit(db: Db, accountId: string, limit: number | null): Promise<void> {
  await db.$executeRaw`
    INSERT INTO enrichment_credits (account_id, credit_limit, updated_at)
    VALUES (${accountId}::uuid, ${limit}::int, now())
    ON CONFLICT (account_id) DO UPDATE SET credit_limit = EXCLUDED.credit_limit, updated_at = EXCLUDED.updated_at`;
}

/** The credit keeper's store (domain/credits.ts) on Postgres, leasing with these bounds. */
export function creditStore(db: Db, leases: { ttlMs: number; maxGrant: number }): CreditStore {
  return {
    limitOf: (accountId) => creditLimitOf(db, accountId),
    lease: (accountId) => leaseCredits(db, accountId, leases),
    end: (leaseIds) => endLeases(db, leaseIds),
  };
}
