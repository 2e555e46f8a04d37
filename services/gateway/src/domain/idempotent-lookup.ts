// Idempotent enrichment: with an Idempotency-Key a lookup's answer is kept for 24 h, bound to the
// fingerprint of its path and body, and a retry with the same key and body is given that answer
// again: the lookup is neither made nor billed twice. The same key with another body is 422; a
// retry while the first is still being answered waits for it (then 409). Only answers that depend
// on the body alone are kept: a 402 (credits may be added), 429 or 5xx frees the key for a retry.
// Without Redis a keyed lookup is refused (503): a retry could not be told from a new lookup.
import { createHash } from 'node:crypto';
import { AppError } from '@glimpse/errors';
import { claimIdempotencyKey } from './claim-idempotency-key.js';
import type { IdempotencyStore } from './idempotency-store.js';
import { upstreamResponse, type UpstreamResponse } from './upstream-response.js';

/** JSON with object keys sorted at every level: the same body however its keys were ordered. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

export function lookupFingerprint(path: string, body: unknown): string {
  return createHash('sha256')
    .update(`${path}\n${canonical(body)}`)
    .digest('base64url');
}

/** An answer that depends on the body alone, kept for retries (402, 429 and 5xx may change). */
const isKeptForRetries = (status: number) => status < 500 && status !== 402 && status !== 429;

const lookupKeyErrors = {
  reused: () => new AppError('idempotency_key_reused', 'this Idempotency-Key was already used with a different lookup; use a new key for a new lookup'),
  inFlight: () =>
    new AppError('idempotency_key_in_flight', 'a lookup with this Idempotency-Key is still being answered; retry shortly with the same key', {
      headers: { 'Retry-After': '1' },
    }),
};
/** Without Redis a retry could not be told from a new lookup, which would be made and billed twice. */
const refuseWithoutRedis = {
  refuse: () =>
    new AppError('service_unavailable', 'lookups with an Idempotency-Key cannot be served right now; retry later (or without the key)', {
      headers: { 'Retry-After': '1' },
    }),
};

export interface IdempotentLookupOptions {
  store: IdempotencyStore;
  accountId: string;
  key: string | undefined;
  fingerprint: string;
  /** How long a retry waits for a first answer still being made. */
  waitMs: number;
}

interface KeptAnswer {
  status: number;
  headers: Record<string, string>;
  raw: string;
}

export async function idempotentLookup(
  { store, accountId, key, fingerprint, waitMs }: IdempotentLookupOptions,
  lookup: () => Promise<UpstreamResponse>,
): Promise<UpstreamResponse> {
  if (key === undefined) return lookup();
  const claimed = await claimIdempotencyKey({ store, accountId, key, fingerprint, waitMs, withoutRedis: refuseWithoutRedis, errors: lookupKeyErrors });
  if (claimed.state === 'done') {
    // Lookup keys are kept apart from event keys and always completed with their answer.
    if (claimed.answer === undefined) throw lookupKeyErrors.inFlight();
    const kept = JSON.parse(claimed.answer) as KeptAnswer;
    return upstreamResponse(kept.status, kept.raw, kept.headers);
  }
  let answer: UpstreamResponse;
  try {
    answer = await lookup();
  } catch (err) {
    await store.release(accountId, key, fingerprint);
    throw err;
  }
  if (isKeptForRetries(answer.status)) {
    const kept: KeptAnswer = { status: answer.status, headers: answer.headers, raw: answer.raw };
    await store.complete(accountId, key, fingerprint, JSON.stringify(kept));
  } else {
    await store.release(accountId, key, fingerprint);
  }
  return answer;
}
