// Bulk writes for visitor imports: a batch in one set-based statement.
import type { Db } from '@glimpse/db/enrichment';
import type { VisitorImportStore, VisitorRow } from '../domain/import-data.js';

/** Later rows win over earlier ones with the same key, as a re-import replaces. */
function lastWins<T>(rows: T[], key: (row: T) => string): T[] {
  return [...new Map(rows.map((r) => [key(r), r])).values()];
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

/** The visitor import's store (domain/import-data.ts) on Postgres. */
export function visitorImportStore(db: Db): VisitorImportStore {
  return { upsertVisitors: (accountId, batch) => upsertVisitors(db, accountId, batch) };
}
