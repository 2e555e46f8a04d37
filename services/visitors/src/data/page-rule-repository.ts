// An account's page rules (at most PAGE_RULES_PER_ACCOUNT, PAGE_RULES_MAX by default): listed, created
// under the cap, re-weighted, deleted. A rule's weight counts in the account's intent scores: creating,
// re-weighting or deleting a weighted rule marks the account for re-scoring, in the same transaction.
import { randomUUID } from 'node:crypto';
import type { Db } from '@glimpse/db/visitors';
import { markIntentChanged } from './intent-repository.js';

export const PAGE_RULES_MAX = 100;

export interface PageRuleRecord {
  id: string;
  pattern: string;
  /** null: the rule only scores. */
  event: string | null;
  weight: number;
  createdAt: string;
}

type Row = { id: string; pattern: string; event: string | null; weight: number; created_at: Date };
const record = (r: Row): PageRuleRecord => ({
  id: r.id,
  pattern: r.pattern,
  event: r.event,
  weight: r.weight,
  createdAt: new Date(r.created_at).toISOString(),
});
const RETURNING = 'RETURNING id::text AS id, pattern, event, weight, created_at';

export async function listPageRules(db: Db, accountId: string): Promise<PageRuleRecord[]> {
  const rows = await db.$queryRawUnsafe<Row[]>(
    `SELECT id::text AS id, pattern, event, weight, created_at FROM page_rules WHERE account_id = $1::uuid ORDER BY created_at DESC, id`,
    accountId,
  );
  return rows.map(record);
}

/** The new rule, or null when the account has `max` already (checked under a per-account lock). */
export async function createPageRule(
  db: Db,
  accountId: string,
  rule: { pattern: string; event: string | null; weight: number },
  max = PAGE_RULES_MAX,
): Promise<PageRuleRecord | null> {
  return db.$transaction(async (tx) => {
    await tx.$executeRawUnsafe(`SELECT pg_advisory_xact_lock(hashtextextended('page_rules:' || $1::text, 0))`, accountId);
    const rows = await tx.$queryRawUnsafe<Row[]>(
      `INSERT INTO page_rules (id, account_id, pattern, event, weight)
       SELECT $1::uuid, $2::uuid, $3, $4, $5 WHERE (SELECT count(*) FROM page_rules WHERE account_id = $2::uuid) < $6::int
       ${RETURNING}`,
      randomUUID(),
      accountId,
      rule.pattern,
      rule.event,
      rule.weight,
      max,
    );
    if (rows[0] && rule.weight > 0) await markIntentChanged(tx, accountId);
    return rows[0] ? record(rows[0]) : null;
  });
}

/** The rule with its new weight, or null when the account has no such rule. */
export async function reweighPageRule(db: Db, accountId: string, id: string, weight: number): Promise<PageRuleRecord | null> {
  return db.$transaction(async (tx) => {
    const before = await tx.$queryRawUnsafe<{ weight: number }[]>(
      `SELECT weight FROM page_rules WHERE account_id = $1::uuid AND id = $2::uuid FOR UPDATE`,
      accountId,
      id,
    );
    if (!before[0]) return null;
    const rows = await tx.$queryRawUnsafe<Row[]>(
      `UPDATE page_rules SET weight = $3 WHERE account_id = $1::uuid AND id = $2::uuid ${RETURNING}`,
      accountId,
      id,
      weight,
    );
    if (before[0].weight !== weight) await markIntentChanged(tx, accountId);
    return record(rows[0]!);
  });
}

export async function deletePageRule(db: Db, accountId: string, id: string): Promise<boolean> {
  return db.$transaction(async (tx) => {
    const gone = await tx.$queryRawUnsafe<{ weight: number }[]>(
      `DELETE FROM page_rules WHERE account_id = $1::uuid AND id = $2::uuid RETURNING weight`,
      accountId,
      id,
    );
    if ((gone[0]?.weight ?? 0) > 0) await markIntentChanged(tx, accountId);
    return gone.length > 0;
  });
}
