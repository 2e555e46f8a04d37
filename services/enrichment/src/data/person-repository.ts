// Reads persons through their identities, and visitors of an account, as the texts they are
// served as (json columns read ::text: no parse here, no re-serialisation in the service).
import type { Db } from '@glimpse/db/enrichment';
import type { Charge, IdentityKey, PersonStore, StoredVisitor } from '../domain/person-store.js';

// Every lookup's hot path is one statement, one round trip: the identity (the first key that
// matches, in the order given), the person's record, and, when charged, the usage ledger row,
// appended in the same statement so a match and its bill cannot part (and, for a lookup by email,
// the person marked paid for the month, $6 and $7, in it too). The statements are constant
// texts with bound parameters, sent with $queryRawUnsafe: Prisma's tagged-template path costs
// about 0.09 ms of CPU more per query (measured), and nothing of the input is ever in the text.

// One key (the usual lookup): plain equality on the identity's primary key, the cheapest plan.
const BY_KEY = `SELECT p.record::text AS record FROM identities i JOIN persons p ON p.id = i.person_id
  WHERE i.kind = $1 AND i.value = $2`;
// A lookup's bill, after its `hit` (the person matched, or no row): the usage ledger row and, for a
// lookup by email, the person marked paid for the month; then the person's record.
const BILL_HIT = `billed AS (
    INSERT INTO usage_ledger (account_id, day, lease_id) SELECT $3::uuid, $4::date, $5::uuid FROM hit
  ), paid AS (
    INSERT INTO billed_persons (account_id, period, person_key) SELECT $3::uuid, $6::date, $7::text FROM hit
    WHERE $7::text IS NOT NULL ON CONFLICT DO NOTHING
  )
  SELECT p.record::text AS record FROM hit JOIN persons p ON p.id = hit.person_id`;
const BY_KEY_BILLED = `WITH hit AS (
    SELECT person_id FROM identities WHERE kind = $1 AND value = $2
  ), ${BILL_HIT}`;
// Email and phone: the first key in the order given that matches wins.
const BY_KEYS = `SELECT p.record::text AS record
  FROM unnest($1::text[], $2::text[]) WITH ORDINALITY AS k(kind, value, n)
  JOIN identities i ON i.kind = k.kind AND i.value = k.value
  JOIN persons p ON p.id = i.person_id
  ORDER BY k.n LIMIT 1`;
const BY_KEYS_BILLED = `WITH hit AS (
    SELECT i.person_id FROM unnest($1::text[], $2::text[]) WITH ORDINALITY AS k(kind, value, n)
    JOIN identities i ON i.kind = k.kind AND i.value = k.value
    ORDER BY k.n LIMIT 1
  ), ${BILL_HIT}`;

/** The texts of the statements above, for the benchmark to send the very same ones through pg. */
export const LOOKUP_STATEMENTS = { BY_KEY, BY_KEY_BILLED, BY_KEYS, BY_KEYS_BILLED } as const;

/** The record text of the person behind the first matching key; with a charge, billed when found. */
export async function findRecord(db: Db, keys: IdentityKey[], charge?: Charge): Promise<string | null> {
  const one = keys.length === 1;
  const [kind, value] = one ? [keys[0]!.kind, keys[0]!.value] : [keys.map((k) => k.kind), keys.map((k) => k.value)];
  const rows = charge
    ? await db.$queryRawUnsafe<{ record: string }[]>(one ? BY_KEY_BILLED : BY_KEYS_BILLED, kind, value, ...chargeParams(charge))
    : await db.$queryRawUnsafe<{ record: string }[]>(one ? BY_KEY : BY_KEYS, kind, value);
  return rows[0]?.record ?? null;
}

const chargeParams = ({ accountId, day, leaseId, paid }: Charge) => [accountId, day, leaseId, paid?.period ?? null, paid?.personKey ?? null] as const;

const CHARGE = `WITH billed AS (
    INSERT INTO usage_ledger (account_id, day, lease_id) VALUES ($1::uuid, $2::date, $3::uuid)
  )
  INSERT INTO billed_persons (account_id, period, person_key) SELECT $1::uuid, $4::date, $5::text
  WHERE $5::text IS NOT NULL ON CONFLICT DO NOTHING`;

/** Bills one lookup on its own (a lookup with `required` reads the record before it bills). */
export async function appendCharge(db: Db, charge: Charge): Promise<void> {
  await db.$executeRawUnsafe(CHARGE, ...chargeParams(charge));
}

const VISITOR = `SELECT p.details::text AS details, CASE WHEN p.details IS NULL THEN p.record::text END AS record, v.page_views AS "pageViews"
  FROM visitors v JOIN persons p ON p.id = v.person_id
  WHERE v.account_id = $1::uuid AND v.id = $2`;

/** `accountId` must be a UUID (the internal routes check it). */
export async function findVisitor(db: Db, accountId: string, visitorId: string): Promise<StoredVisitor | null> {
  const [row] = await db.$queryRawUnsafe<StoredVisitor[]>(VISITOR, accountId, visitorId);
  return row ?? null;
}

/** The person lookups' store (domain/person-store.ts) on Postgres. */
export function personStore(db: Db): PersonStore {
  return {
    findRecord: (keys, charge) => findRecord(db, keys, charge),
    appendCharge: (charge) => appendCharge(db, charge),
    findVisitor: (accountId, visitorId) => findVisitor(db, accountId, visitorId),
  };
}
