// enrichment.billed_persons: who has been billed to an account in a period (see domain/billed-person.ts).
import type { Db } from '@glimpse/db/enrichment';
import type { BilledPersonStore, PersonCharge } from '../domain/billed-person.js';

// One statement: the person's row and, only when it was inserted, the ledger row. Two concurrent
// disclosures of one person insert one row between them, so one of them bills.
const BILL = `WITH person AS (
    INSERT INTO billed_persons (account_id, period, person_key) VALUES ($1::uuid, $2::date, $3)
    ON CONFLICT DO NOTHING RETURNING account_id
  ), billed AS (
    INSERT INTO usage_ledger (account_id, day, lease_id) SELECT account_id, $4::date, $5::uuid FROM person
  )
  SELECT count(*)::int AS billed FROM person`;

export function billedPersonStore(db: Db): BilledPersonStore {
  return {
    async isBilled(accountId, period, personKey) {
      const rows = await db.$queryRawUnsafe<unknown[]>(
        'SELECT 1 FROM billed_persons WHERE account_id = $1::uuid AND period = $2::date AND person_key = $3',
        accountId,
        period,
        personKey,
      );
      return rows.length > 0;
    },
    async bill({ accountId, period, personKey, day, leaseId }: PersonCharge) {
      const [row] = await db.$queryRawUnsafe<{ billed: number }[]>(BILL, accountId, period, personKey, day, leaseId);
      return (row?.billed ?? 0) > 0;
    },
  };
}

/** How many persons are billed to the account in the period. */
export async function billedPersonsIn(db: Db, accountId: string, period: string): Promise<number> {
  const [row] = await db.$queryRaw<{ n: number }[]>`
    SELECT count(*)::int AS n FROM billed_persons WHERE account_id = ${accountId}::uuid AND period = ${period}::date`;
  return row?.n ?? 0;
}
