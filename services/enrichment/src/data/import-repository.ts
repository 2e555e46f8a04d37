// Bulk writes for imports: a batch of persons (record + identities, replacing what a re-imported
// person had) or visitors in one transaction, with set-based SQL so 100 000 rows take seconds.
import type { Db } from '@glimpse/db';

export interface PersonRow {
  id: string;
  record: unknown;
  identities: { kind: string; value: string }[];
}

/** Later rows win over earlier ones with the same key, as a re-import replaces. */
function lastWins<T>(rows: T[], key: (row: T) => string): T[] {
  return [...new Map(rows.map((r) => [key(r), r])).values()];
}

export async function upsertPersons(db: Db, batch: PersonRow[]): Promise<void> {
  const persons = lastWins(batch, (p) => p.id);
  const identities = lastWins(
    persons.flatMap((p) => p.identities.map((i) => ({ ...i, personId: p.id }))),
    (i) => `${i.kind}:${i.value}`,
  );
  const ids = persons.map((p) => p.id);
  // The records go as one JSON array, not as a text[] of JSON strings: an array literal escapes
  // every quote of every record on both sides, which made this insert take twice as long.
  const records = JSON.stringify(persons.map((p) => ({ id: p.id, record: p.record })));
  await db.$transaction([
    db.$executeRaw`
      INSERT INTO persons (id, record, updated_at)
      SELECT e->>'id', e->'record', now() FROM jsonb_array_elements(${records}::jsonb) AS e
      ON CONFLICT (id) DO UPDATE SET record = EXCLUDED.record, updated_at = now()`,
    db.$executeRaw`DELETE FROM identities WHERE person_id = ANY(${ids}::text[])`,
    db.$executeRaw`
      INSERT INTO identities (kind, value, person_id)
      SELECT * FROM unnest(${identities.map((i) => i.kind)}::text[], ${identities.map((i) => i.value)}::text[], ${identities.map((i) => i.personId)}::text[])
      ON CONFLICT (kind, value) DO UPDATE SET person_id = EXCLUDED.person_id`,
  ]);
}

export interface VisitorRow {
  visitorId: string;
  email: string;
  pageViews: unknown;
}

/** Writes the visitors whose email belongs to a known person; returns the emails that matched nobody. */
export async function upsertVisitors(db: Db, accountId: string, batch: VisitorRow[]): Promise<Set<string>> {
  const rows = lastWins(batch, (v) => v.visitorId);
  const emails = [...new Set(rows.map((v) => v.email))];
  const found = await db.identity.findMany({ where: { kind: 'email', value: { in: emails } }, select: { value: true, personId: true } });
  const personOf = new Map(found.map((f) => [f.value, f.personId]));
  const known = rows.filter((v) => personOf.has(v.email));
  if (known.length > 0) {
    await db.$executeRaw`
      INSERT INTO visitors (account_id, id, person_id, page_views, updated_at)
      SELECT ${accountId}::uuid, id, person_id, page_views::jsonb, now()
      FROM unnest(${known.map((v) => v.visitorId)}::text[], ${known.map((v) => personOf.get(v.email)!)}::text[], ${known.map((v) => (v.pageViews === undefined ? null : JSON.stringify(v.pageViews)))}::text[]) AS t(id, person_id, page_views)
      ON CONFLICT (account_id, id) DO UPDATE SET person_id = EXCLUDED.person_id, page_views = EXCLUDED.page_views, updated_at = now()`;
  }
  return new Set(emails.filter((e) => !personOf.has(e)));
}
