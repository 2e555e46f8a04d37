// What a deleted account leaves in the enrichment schema: its visitors, its usage (ledger and
// rolled-up days), its credit limit, its credit leases and its billed persons. Persons and identities are nobody's
// account data and stay. Removed in one transaction; a second run finds nothing (idempotent).
import type { Db } from '@glimpse/db/enrichment';

export interface RemovedAccountData {
  visitors: number;
  usageLedger: number;
  usageDays: number;
  credits: number;
  creditLeases: number;
  billedPersons: number;
}

/**
 * The ledger goes before usage_days: a roll-up that moved the account's ledger rows concurrently
 * has committed its usage_days rows by the time the ledger delete stops waiting for its locks, and
 * the next statement (a fresh snapshot under read committed) removes them too.
 */
export async function deleteAccountData(db: Db, accountId: string): Promise<RemovedAccountData> {
  // Plain deletes by account: Prisma's deleteMany, each one DELETE statement, in this order.
  const where = { accountId };
  const [usageLedger, usageDays, creditLeases, credits, visitors, billedPersons] = await db.$transaction([
    db.usageEntry.deleteMany({ where }),
    db.usageDay.deleteMany({ where }),
    db.creditLease.deleteMany({ where }),
    db.enrichmentCredit.deleteMany({ where }),
    db.visitor.deleteMany({ where }),
    db.billedPerson.deleteMany({ where }),
  ]);
  return {
    visitors: visitors.count,
    usageLedger: usageLedger.count,
    usageDays: usageDays.count,
    credits: credits.count,
    creditLeases: creditLeases.count,
    billedPersons: billedPersons.count,
  };
}
