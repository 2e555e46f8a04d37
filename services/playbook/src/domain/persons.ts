// Suppression and erasure of a person of an account.
//   Suppression: the person's events are still applied (catalog counts) but start nothing; their
//   active enrollments stop now with stoppedBy "suppressed".
//   Erasure: active enrollments stop (stoppedBy "erased"), then the email leaves every table: the
//   enrollments and effects keep a keyed stand-in in its place (createErasedEmail: HMAC under the
//   account's key, so counts stay right and a guessed email cannot be confirmed without the
//   secret), the suppression row is deleted, and the stand-in is remembered with the time
//   (erasures) so that the person's events still queued in Kafka from before the erasure are
//   dropped. Idempotent: erasing again gives the same stand-in and finds nothing to change.
//   Each stop is an effect (cause "suppressed" or "erased") in the outbox, published on
//   playbook.effects by the effects sweeper (effects-outbox.ts) like any other effect.
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { suppressionInputSchema } from '@glimpse/api';
import type { Db } from '@glimpse/db';
import { AppError } from '@glimpse/errors';
import { normalizeEmail } from '@glimpse/validation';
import { DEFAULT_LIMITS, lockAccountFor } from './limits.js';

export interface SuppressionView {
  id: string;
  email: string;
  createdAt: Date;
}

/** The stand-in of an erased email for an account (createErasedEmail under the service's secret). */
export type ErasedEmail = (accountId: string, email: string) => string;

export function parseEmailParam(value: string): string {
  const email = normalizeEmail(value);
  if (email === null) throw new AppError('invalid_request', 'email must be a valid email address');
  return email;
}

export function parseSuppressionInput(body: unknown): { email: string } {
  const result = (suppressionInputSchema as z.ZodType<{ email: string }>).safeParse(body);
  if (!result.success) throw new AppError('invalid_request', result.error.issues[0]!.message);
  return result.data;
}

const STOP_ACTIVE = `UPDATE enrollments SET status = 'stopped', stopped_at = now(), stopped_by = $3
  WHERE account_id = $1::uuid AND email = $2 AND status = 'active'
  RETURNING playbook_id::text AS playbook_id`;

// One effect per stopped enrollment, under the operation's id in place of an event id ($2), with the
// cause as event name and cause; $4 is the email the effect names (for an erasure, its hash).
const STOP_EFFECTS = `INSERT INTO playbook_effects (id, event_id, account_id, playbook_id, email, action, event_name, at, cause)
  SELECT gen_random_uuid(), $2::uuid, $1::uuid, p, $4, 'stopped', $3, now(), $3 FROM unnest($5::uuid[]) AS p`;

type Tx = Parameters<Parameters<Db['$transaction']>[0]>[0];

/** Stops the person's active enrollments and records each stop as an effect with its cause; returns how many stopped. */
async function stopActive(tx: Tx, accountId: string, email: string, cause: 'suppressed' | 'erased', effectEmail: string): Promise<number> {
  const stopped = await tx.$queryRawUnsafe<{ playbook_id: string }[]>(STOP_ACTIVE, accountId, email, cause);
  if (stopped.length > 0) await tx.$executeRawUnsafe(STOP_EFFECTS, accountId, randomUUID(), cause, effectEmail, stopped.map((r) => r.playbook_id));
  return stopped.length;
}

/**
 * Suppresses the person (again: no change) and stops their active enrollments. A new suppression
 * is counted and inserted under the account's lock: past `maxPerAccount` it is 409 limit_reached
 * (suppressing someone already suppressed still answers, whatever the count).
 */
export async function suppressPerson(
  db: Db,
  accountId: string,
  email: string,
  { maxPerAccount = DEFAULT_LIMITS.suppressionsPerAccount }: { maxPerAccount?: number } = {},
): Promise<{ created: boolean; suppression: SuppressionView & { stoppedEnrollments: number } }> {
  return db.$transaction(async (tx) => {
    await lockAccountFor(tx, 'suppressions', accountId);
    const inserted = await tx.$queryRawUnsafe<{ id: string }[]>(
      `INSERT INTO suppressions (id, account_id, email)
       SELECT gen_random_uuid(), $1::uuid, $2::text
       WHERE (SELECT count(*) FROM (SELECT 1 FROM suppressions WHERE account_id = $1::uuid LIMIT $3::int) s) < $3::int
       ON CONFLICT (account_id, email) DO NOTHING RETURNING id::text AS id`,
      accountId,
      email,
      maxPerAccount,
    );
    const row = await tx.suppression.findUnique({ where: { accountId_email: { accountId, email } }, select: { id: true, email: true, createdAt: true } });
    if (!row) throw new AppError('limit_reached', `this account already has ${maxPerAccount} suppressed people, the most it may have; lift one first`);
    const stoppedEnrollments = await stopActive(tx, accountId, email, 'suppressed', email);
    return { created: inserted.length > 0, suppression: { ...row, stoppedEnrollments } };
  });
}

export async function unsuppressPerson(db: Db, accountId: string, email: string): Promise<void> {
  const { count } = await db.suppression.deleteMany({ where: { accountId, email } });
  if (count === 0) throw new AppError('not_found', 'this email is not suppressed in this account');
}

/** Newest first, strictly after `after`. */
export async function suppressionPage(
  db: Db,
  accountId: string,
  { limit, after }: { limit: number; after: { at: Date; id: string } | null },
): Promise<{ items: SuppressionView[]; next: { at: Date; id: string } | null }> {
  const rows = await db.suppression.findMany({
    where: { accountId, ...(after ? { OR: [{ createdAt: { lt: after.at } }, { createdAt: after.at, id: { lt: after.id } }] } : {}) },
    select: { id: true, email: true, createdAt: true },
    orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
    take: limit + 1,
  });
  const items = rows.slice(0, limit);
  const last = items[items.length - 1];
  return { items, next: rows.length > limit && last ? { at: last.createdAt, id: last.id } : null };
}

export interface ErasureCounts {
  stoppedEnrollments: number;
  hashedEnrollments: number;
  hashedEffects: number;
  deletedSuppressions: number;
  /** The stand-in that replaced the email: the gateway hands it to the webhooks service (its delivery records). */
  replacement: string;
}

/** Stops the person's active enrollments, replaces their email by its stand-in in enrollments and effects, deletes their suppression. */
export async function erasePerson(db: Db, erasedEmail: ErasedEmail, accountId: string, email: string): Promise<ErasureCounts> {
  const hash = erasedEmail(accountId, email);
  return db.$transaction(async (tx) => {
    // The stop effects name the stand-in: a webhook must not spread the email the erasure removes.
    const stoppedEnrollments = await stopActive(tx, accountId, email, 'erased', hash);
    // By account and email, not through the enrollments' event ids: the effects of a deleted
    // playbook outlive its enrollments. A scan of the account's effects, for a rare operation.
    const hashedEffects = await tx.$executeRawUnsafe(`UPDATE playbook_effects SET email = $3 WHERE account_id = $1::uuid AND email = $2`, accountId, email, hash);
    const hashedEnrollments = await tx.$executeRawUnsafe(`UPDATE enrollments SET email = $3 WHERE account_id = $1::uuid AND email = $2`, accountId, email, hash);
    const { count: deletedSuppressions } = await tx.suppression.deleteMany({ where: { accountId, email } });
    await tx.$executeRawUnsafe(
      `INSERT INTO erasures (account_id, email_hash, erased_at) VALUES ($1::uuid, $2, now())
       ON CONFLICT (account_id, email_hash) DO UPDATE SET erased_at = EXCLUDED.erased_at`,
      accountId,
      hash,
    );
    return { stoppedEnrollments, hashedEnrollments, hashedEffects, deletedSuppressions, replacement: hash };
  });
}
