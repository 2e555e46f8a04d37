// An account's page rules (at most PAGE_RULES_PER_ACCOUNT, PAGE_RULES_MAX by default): listed, created under the cap, deleted.
import { randomUUID } from 'node:crypto';
import type { Db } from '@glimpse/db/visitors';

export const PAGE_RULES_MAX = 100;

export interface PageRuleRecord {
  id: string;
  pattern: string;
  event: string;
  createdAt: string;
}

type Row = { id: string; pattern: string; event: string; created_at: Date };
const record = (r: Row): PageRuleRecord => ({ id: r.id, pattern: r.pattern, event: r.event, createdAt: new Date(r.created_at).toISOString() });

export async function listPageRules(db: Db, accountId: string): Promise<PageRuleRecord[]> {
  const rows = await db.$queryRawUnsafe<Row[]>(
    `SELECT id::text AS id, pattern, event, created_at FROM page_rules WHERE account_id = $1::uuid ORDER BY created_at DESC, id`,
    accountId,
  );
  return rows.map(record);
}

/** The new rule, or null when the account has `max` already (checked under a per-account lock). */
export async function createPageRule(
  db: Db,
  accountId: string,
  rule: { pattern: string; event: string },
  max = PAGE_RULES_MAX,
): Promise<PageRuleRecord | null> {
  return db.$transaction(async (tx) => {
    await tx.$executeRawUnsafe(`SELECT pg_advisory_xact_lock(hashtextextended('page_rules:' || $1::text, 0))`, accountId);
    const rows = await tx.$queryRawUnsafe<Row[]>(
      `INSERT INTO page_rules (id, account_id, pattern, event)
       SELECT $1::uuid, $2::uuid, $3, $4 WHERE (SELECT count(*) FROM page_rules WHERE account_id = $2::uuid) < $5::int
       RETURNING id::text AS id, pattern, event, created_at`,
      randomUUID(),
      accountId,
      rule.pattern,
      rule.event,
      max,
    );
    return rows[0] ? record(rows[0]) : null;
  });
}

export async function deletePageRule(db: Db, accountId: string, id: string): Promise<boolean> {
  return (await db.$executeRawUnsafe(`DELETE FROM page_rules WHERE account_id = $1::uuid AND id = $2::uuid`, accountId, id)) > 0;
}
