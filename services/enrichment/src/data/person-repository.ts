// Reads persons through their identities, and visitors of an account, as the texts they are
// served as (json columns read ::text: no parse here, no re-serialisation in the service).
import type { Db } from '@glimpse/db';

export interface IdentityKey {
  kind: 'email' | 'phone';
  value: string;
}

/** What a billed lookup appends to the usage ledger. */
export interface Charge {
  accountId: string;
  /** UTC day, YYYY-MM-DD. */
  day: string;
  /** The credit lease spent, for an account with a credit limit. */
  leaseId: string | null;
}

// Every lookup's hot path is one statement, one round trip: the identity (the first key that
// matches, in the order given), the person's record, and, when charged, the usage ledger row,
// appended in the same statement so a match and its bill cannot part.

/** The record text of the person behind the first matching key; with a charge, billed when found. */
export async function findRecord(db: Db, keys: IdentityKey[], charge?: Charge): Promise<string | null> {
  const rows = keys.length === 1 ? await byOneKey(db, keys[0]!, charge) : await byKeys(db, keys, charge);
  return rows[0]?.record ?? null;
}

// One key (the usual lookup): plain equality on the identity's primary key, the cheapest plan.
function byOneKey(db: Db, { kind, value }: IdentityKey, charge?: Charge) {
  return charge
    ? db.$queryRaw<{ record: string }[]>`
        WITH hit AS (
          SELECT person_id FROM identities WHERE kind = ${kind} AND value = ${value}
        ), billed AS (
          INSERT INTO usage_ledger (account_id, day, lease_id)
          SELECT ${charge.accountId}::uuid, ${charge.day}::date, ${charge.leaseId}::uuid FROM hit
        )
        SELECT p.record::text AS record FROM hit JOIN persons p ON p.id = hit.person_id`
    : db.$queryRaw<{ record: string }[]>`
        SELECT p.record::text AS record FROM identities i JOIN persons p ON p.id = i.person_id
        WHERE i.kind = ${kind} AND i.value = ${value}`;
}

// Email and phone: the first key in the order given that matches wins.
function byKeys(db: Db, keys: IdentityKey[], charge?: Charge) {
  const kinds = keys.map((k) => k.kind);
  const values = keys.map((k) => k.value);
  return charge
    ? db.$queryRaw<{ record: string }[]>`
        WITH hit AS (
          SELECT i.person_id FROM unnest(${kinds}::text[], ${values}::text[]) WITH ORDINALITY AS k(kind, value, n)
          JOIN identities i ON i.kind = k.kind AND i.value = k.value
          ORDER BY k.n LIMIT 1
        ), billed AS (
          INSERT INTO usage_ledger (account_id, day, lease_id)
          SELECT ${charge.accountId}::uuid, ${charge.day}::date, ${charge.leaseId}::uuid FROM hit
        )
        SELECT p.record::text AS record FROM hit JOIN persons p ON p.id = hit.person_id`
    : db.$queryRaw<{ record: string }[]>`
        SELECT p.record::text AS record
        FROM unnest(${kinds}::text[], ${values}::text[]) WITH ORDINALITY AS k(kind, value, n)
        JOIN identities i ON i.kind = k.kind AND i.value = k.value
        JOIN persons p ON p.id = i.person_id
        ORDER BY k.n LIMIT 1`;
}

export interface StoredVisitor {
  /** The §2.1 details text; null for persons imported before details were stored. */
  details: string | null;
  /** The record text, only when details is null (to derive them). */
  record: string | null;
  pageViews: unknown;
}

/** `accountId` must be a UUID (the internal routes check it). */
export async function findVisitor(db: Db, accountId: string, visitorId: string): Promise<StoredVisitor | null> {
  const [row] = await db.$queryRaw<StoredVisitor[]>`
    SELECT p.details::text AS details, CASE WHEN p.details IS NULL THEN p.record::text END AS record, v.page_views AS "pageViews"
    FROM visitors v JOIN persons p ON p.id = v.person_id
    WHERE v.account_id = ${accountId}::uuid AND v.id = ${visitorId}`;
  return row ?? null;
}
