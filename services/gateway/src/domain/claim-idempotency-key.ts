// The claim-and-poll of an Idempotency-Key, shared by the events and the enrichment lookups: claim
// the key, or, while a first request with it is still being answered, poll until that one is done
// or the wait is over.
//
// The two differ on purpose when Redis cannot be asked (`withoutRedis`):
// - an event is sent anyway ('proceed'): its id is derived from the key and the event, so the
//   playbook service drops a repeat, and refusing would stop event intake whenever Redis is down;
// - a lookup is refused (503): nothing downstream could tell a retry from a new lookup,
//   which would be made and billed twice.
//
// An account over its budget of keys (data/idempotency-store.ts) is refused, 429
// idempotency_budget_exceeded: the request is not processed and its key not stored, and
// Retry-After names the next hour, when the oldest hour's keys stop counting.
import { AppError } from '@glimpse/errors';
import type { IdempotencyStore } from './idempotency-store.js';

const POLL_MS = 50;

/** What a claim ends in: the key is ours to answer with, or a first request with it is done (with its kept answer, if any). */
export type ClaimedKey = { state: 'claimed' } | { state: 'done'; answer?: string };

export interface ClaimIdempotencyKeyOptions {
  store: IdempotencyStore;
  accountId: string;
  key: string;
  fingerprint: string;
  /** How long a retry waits for a first request with its key still being answered. */
  waitMs: number;
  /** Redis unavailable: go on as if claimed, or refuse with the caller's error (see the note at the top). */
  withoutRedis: 'proceed' | { refuse(): AppError };
  /** The answers the caller gives, in its own words. */
  errors: { reused(): AppError; inFlight(): AppError };
}

export function overBudget(now: number): AppError {
  const untilNextHour = 3600 - (Math.floor(now / 1000) % 3600);
  return new AppError(
    'idempotency_budget_exceeded',
    'the account holds as many Idempotency-Keys as its budget allows (they count for 25 hours); retry later, or send without an Idempotency-Key',
    { headers: { 'Retry-After': String(untilNextHour) } },
  );
}

export async function claimIdempotencyKey({
  store,
  accountId,
  key,
  fingerprint,
  waitMs,
  withoutRedis,
  errors,
}: ClaimIdempotencyKeyOptions): Promise<ClaimedKey> {
  const deadline = Date.now() + waitMs;
  for (;;) {
    const holder = await store.claim(accountId, key, fingerprint);
    if (holder === null) {
      if (withoutRedis === 'proceed') return { state: 'claimed' };
      throw withoutRedis.refuse();
    }
    if (holder.state === 'claimed') return holder;
    if (holder.state === 'over_budget') throw overBudget(Date.now());
    // A null fingerprint: a key written before keys were bound to a body, taken as this one's.
    if (holder.fingerprint !== null && holder.fingerprint !== fingerprint) throw errors.reused();
    if (holder.state === 'done') return { state: 'done', answer: holder.answer };
    if (Date.now() + POLL_MS > deadline) throw errors.inFlight();
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
}
