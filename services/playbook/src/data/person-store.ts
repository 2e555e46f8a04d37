// Suppressions and erasures (domain/persons.ts's PersonStore) in Postgres: each operation one
// transaction, the stops recorded as effects (the outbox) in the same transaction.
import { randomUUID } from 'node:crypto';
import { newestFirstPage } from '@glimpse/db';
import type { Db, Tx } from '@glimpse/db/playbook';
import type { PersonStore } from '../domain/persons.js';
import { lockAccountFor } from './account-lock.js';

const SQL = {
  // Inserted only while the account holds fewer than $3 (counted under the account's lock).
  suppress: `INSERT INTO suppressions (id, account_id, email)
    SELECT gen_random_uuid(), $1::uuid, $2::text
    WHERE (SELECT count(*) FROM (SELECT 1 FROM suppressions WHERE account_id = $1::uuid LIMIT $3::int) s) < $3::int
    ON CONFLICT (account_id, email) DO NOTHING RETURNING id::text AS id`,
  stopActive: `UPDATE enrollments SET status = 'stopped', stopped_at = now(), stopped_by = $3
    WHERE account_id = $1::uuid AND email = $2 AND status = 'active'
    RETURNING playbook_id::text AS playbook_id`,
  // One effect per stopped enrollment, under the operation's id in place of an event id ($2), with the
  // cause as event name and cause; $4 is the email the effect names (for an erasure, its hash).
  stopEffects: `INSERT INTO playbook_effects (id, event_id, account_id, playbook_id, email, action, event_name, at, cause)
    SELECT gen_random_uuid(), $2::uuid, $1::uuid, p, $4, 'stopped', $3, now(), $3 FROM unnest($5::uuid[]) AS p`,
  // By account and email, not through the enrollments' event ids: the effects of a deleted
  // playbook outlive its enrollments. A scan of the account's effects, for a rare operation.
  hashEffects: `UPDATE playbook_effects SET email = $3 WHERE account_id = $1::uuid AND email = $2`,
  hashEnrollments: `UPDATE enrollments SET email = $3 WHERE account_id = $1::uuid AND email = $2`,
  rememberErasure: `INSERT INTO erasures (account_id, email_hash, erased_at) VALUES ($1::uuid, $2, now())
    ON CONFLICT (account_id, email_hash) DO UPDATE SET erased_at = EXCLUDED.erased_at`,
};

/** Stops the person's active enrollments and records each stop as an effect with its cause; returns how many stopped. */
async function stopActive(tx: Tx, accountId: string, email: string, cause: 'suppressed' | 'erased', effectEmail: string): Promise<number> {
  const stopped = await tx.$queryRawUnsafe<{ playbook_id: string }[]>(SQL.stopActive, accountId, email, cause);
  if (stopped.length > 0)
    await tx.$executeRawUnsafe(
      SQL.stopEffects,
      accountId,
      randomUUID(),
      cause,
      effectEmail,
      stopped.map((r) => r.playbook_id),
    );
  return stopped.length;
}

export function createPersonStore(db: Db): PersonStore {
  return {
    suppress: (accountId, email, maxPerAccount) =>
      db.$transaction(async (tx) => {
        await lockAccountFor(tx, 'suppressions', accountId);
        const inserted = await tx.$queryRawUnsafe<{ id: string }[]>(SQL.suppress, accountId, email, maxPerAccount);
        const row = await tx.suppression.findUnique({ where: { accountId_email: { accountId, email } }, select: { id: true, email: true, createdAt: true } });
        if (!row) return null;
        const stoppedEnrollments = await stopActive(tx, accountId, email, 'suppressed', email);
        return { created: inserted.length > 0, suppression: { ...row, stoppedEnrollments } };
      }),
    async unsuppress(accountId, email) {
      return (await db.suppression.deleteMany({ where: { accountId, email } })).count;
    },
    suppressions: (accountId, query) => {
      const page = newestFirstPage('createdAt', query);
      return db.suppression.findMany({ ...page, where: { accountId, ...page.where }, select: { id: true, email: true, createdAt: true } });
    },
    erase: (accountId, email, replacement) =>
      db.$transaction(async (tx) => {
        // The stop effects name the stand-in: a webhook must not spread the email the erasure removes.
        const stoppedEnrollments = await stopActive(tx, accountId, email, 'erased', replacement);
        const hashedEffects = await tx.$executeRawUnsafe(SQL.hashEffects, accountId, email, replacement);
        const hashedEnrollments = await tx.$executeRawUnsafe(SQL.hashEnrollments, accountId, email, replacement);
        const { count: deletedSuppressions } = await tx.suppression.deleteMany({ where: { accountId, email } });
        await tx.$executeRawUnsafe(SQL.rememberErasure, accountId, replacement);
        return { stoppedEnrollments, hashedEnrollments, hashedEffects, deletedSuppressions };
      }),
  };
}
