// The store an Idempotency-Key is claimed in, as the use cases need it (claim-idempotency-key.ts,
// accept-event.ts, idempotent-lookup.ts); data/idempotency-store.ts keeps it in Redis.

// A key of a lookup also keeps the answer it was first given, so a retry is answered the same
// without being billed again.
export type KeyState = { state: 'claimed' } | { state: 'over_budget' } | { state: 'pending' | 'done'; fingerprint: string | null; answer?: string };

export interface IdempotencyStore {
  /** Claims the key for a first send, or tells what holds it. Null when Redis is unavailable. */
  claim(accountId: string, key: string, fingerprint: string): Promise<KeyState | null>;
  /** The send was acknowledged: the key answers "done" (with `answer`, when given) for 24 h. */
  complete(accountId: string, key: string, fingerprint: string, answer?: string): Promise<void>;
  /** The send failed: the key is free again (only if this send still holds it). */
  release(accountId: string, key: string, fingerprint: string): Promise<void>;
}
