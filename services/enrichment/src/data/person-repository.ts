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

/** The person behind the first identity that matches, in the order given. */
export async function findPersonByIdentities(db: Db, keys: IdentityKey[]): Promise<StoredPerson | null> {
  for (const key of keys) {
    const row = await db.identity.findUnique({
      where: { kind_value: { kind: key.kind, value: key.value } },
      select: { person: { select: { id: true, record: true } } },
    });
    if (row) return row.person;
  }
  return null;
}

export async function findVisitor(db: Db, accountId: string, visitorId: string): Promise<{ record: unknown; pageViews: unknown } | null> {
  const row = await db.visitor.findUnique({
    where: { accountId_id: { accountId, id: visitorId } },
    select: { pageViews: true, person: { select: { record: true } } },
  });
  return row ? { record: row.person.record, pageViews: row.pageViews } : null;
}
