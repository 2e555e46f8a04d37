// Reads persons through their identities, and visitors of an account, as plain objects.
import type { Db } from '@glimpse/db';

export interface IdentityKey {
  kind: 'email' | 'phone';
  value: string;
}

export interface StoredPerson {
  id: string;
  record: unknown;
}

// Both reads are joins in SQL: Prisma's relation select reads the identity (or visitor) and then
// the person in a second round trip, and these two reads are every lookup's hot path.

/** The person behind the first identity that matches, in the order given. */
export async function findPersonByIdentities(db: Db, keys: IdentityKey[]): Promise<StoredPerson | null> {
  for (const key of keys) {
    const [row] = await db.$queryRaw<StoredPerson[]>`
      SELECT p.id, p.record FROM identities i JOIN persons p ON p.id = i.person_id
      WHERE i.kind = ${key.kind} AND i.value = ${key.value}`;
    if (row) return row;
  }
  return null;
}

/** `accountId` must be a UUID (the internal routes check it). */
export async function findVisitor(db: Db, accountId: string, visitorId: string): Promise<{ record: unknown; pageViews: unknown } | null> {
  const [row] = await db.$queryRaw<{ record: unknown; pageViews: unknown }[]>`
    SELECT p.record, v.page_views AS "pageViews" FROM visitors v JOIN persons p ON p.id = v.person_id
    WHERE v.account_id = ${accountId}::uuid AND v.id = ${visitorId}`;
  return row ?? null;
}
