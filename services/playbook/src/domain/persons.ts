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
//   The writes are the PersonStore's (data/person-store.ts); the rules and errors are here.
import { z } from 'zod';
import { suppressionInputSchema } from '@glimpse/api';
import { AppError } from '@glimpse/errors';
import { cutPage } from '@glimpse/http';
import { normalizeEmail } from '@glimpse/validation';
import type { ErasedEmail } from './batch-store.js';
import { DEFAULT_LIMITS } from './limits.js';

export type { ErasedEmail };

export interface SuppressionView {
  id: string;
  email: string;
  createdAt: Date;
}

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

export interface ErasureCounts {
  stoppedEnrollments: number;
  hashedEnrollments: number;
  hashedEffects: number;
  deletedSuppressions: number;
  /** The stand-in that replaced the email: the gateway hands it to the webhooks service (its delivery records). */
  replacement: string;
}

export interface PersonStore {
  /**
   * In one transaction under the account's suppressions lock: inserts the suppression unless the
   * account already holds `maxPerAccount` (none is added then); if the person is suppressed (now or
   * before), stops their active enrollments, each stop an effect with cause "suppressed". Null when
   * the person is not suppressed (the cap refused them): nothing changed.
   */
  suppress(
    accountId: string,
    email: string,
    maxPerAccount: number,
  ): Promise<{ created: boolean; suppression: SuppressionView & { stoppedEnrollments: number } } | null>;
  /** Deletes the suppression; how many were deleted (0 or 1). */
  unsuppress(accountId: string, email: string): Promise<number>;
  /** Up to `limit` suppressions, newest first (createdAt, then id), strictly after `after`. */
  suppressions(accountId: string, query: { limit: number; after: { at: Date; id: string } | null }): Promise<SuppressionView[]>;
  /**
   * In one transaction: stops the person's active enrollments (effects with cause "erased", naming
   * `replacement`), replaces the email by `replacement` in enrollments and effects, deletes the
   * suppression, and remembers the erasure with its time.
   */
  erase(accountId: string, email: string, replacement: string): Promise<Omit<ErasureCounts, 'replacement'>>;
}

/**
 * Suppresses the person (again: no change) and stops their active enrollments. A new suppression
 * is counted and inserted under the account's lock: past `maxPerAccount` it is 409 limit_reached
 * (suppressing someone already suppressed still answers, whatever the count).
 */
export async function suppressPerson(
  store: PersonStore,
  accountId: string,
  email: string,
  { maxPerAccount = DEFAULT_LIMITS.suppressionsPerAccount }: { maxPerAccount?: number } = {},
): Promise<{ created: boolean; suppression: SuppressionView & { stoppedEnrollments: number } }> {
  const suppressed = await store.suppress(accountId, email, maxPerAccount);
  if (!suppressed) throw new AppError('limit_reached', `this account already has ${maxPerAccount} suppressed people, the most it may have; lift one first`);
  return suppressed;
}

export async function unsuppressPerson(store: PersonStore, accountId: string, email: string): Promise<void> {
  if ((await store.unsuppress(accountId, email)) === 0) throw new AppError('not_found', 'this email is not suppressed in this account');
}

/** Newest first, strictly after `after`. */
export async function suppressionPage(
  store: PersonStore,
  accountId: string,
  { limit, after }: { limit: number; after: { at: Date; id: string } | null },
): Promise<{ items: SuppressionView[]; next: { at: Date; id: string } | null }> {
  return cutPage(await store.suppressions(accountId, { limit: limit + 1, after }), limit, (last) => ({ at: last.createdAt, id: last.id }));
}

/** Stops the person's active enrollments, replaces their email by its stand-in in enrollments and effects, deletes their suppression. */
export async function erasePerson(store: PersonStore, erasedEmail: ErasedEmail, accountId: string, email: string): Promise<ErasureCounts> {
  const replacement = erasedEmail(accountId, email);
  return { ...(await store.erase(accountId, email, replacement)), replacement };
}
