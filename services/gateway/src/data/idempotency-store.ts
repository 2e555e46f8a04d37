// Idempotency keys in Redis, bound to the fingerprint of the event they were first used with.
// A key is "pending" while its first send is in flight (for a short TTL, so a gateway that dies
// mid-send does not hold it for long) and "done" for 24 h once Kafka acknowledged the event.
// Every call fails soft (null): without Redis, duplicates are not detected, and the event id
// derived from the key and fingerprint lets the playbook service drop a repeat instead.
import type { MemoryGuard } from './memory-guard.js';
import type { RedisClient } from './redis-client.js';
import { rawEventKeys, RAW_EVENT_TTL_SECONDS } from './raw-event-store.js';

// A key of a lookup also keeps the answer it was first given (`d:<fingerprint>\n<answer>`), so a
// retry is answered the same without being billed again.
export type KeyState = { state: 'claimed' } | { state: 'pending' | 'done'; fingerprint: string | null; answer?: string };

export interface IdempotencyStore {
  /** Claims the key for a first send, or tells what holds it. Null when Redis is unavailable. */
  claim(accountId: string, key: string, fingerprint: string): Promise<KeyState | null>;
  /** The send was acknowledged: the key answers "done" (with `answer`, when given) for 24 h. */
  complete(accountId: string, key: string, fingerprint: string, answer?: string): Promise<void>;
  /** The send failed: the key is free again (only if this send still holds it). */
  release(accountId: string, key: string, fingerprint: string): Promise<void>;
}

/** SET NX, or the value that is there: one round trip, no gap between the two. */
const CLAIM = `if redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2], 'NX') then return false end return redis.call('GET', KEYS[1])`;
const RELEASE = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0`;

type WithScripts = RedisClient & {
  glimpseIdemClaim(key: string, value: string, ttlMs: number): Promise<string | null>;
  glimpseIdemRelease(key: string, value: string): Promise<number>;
};

const pending = (fingerprint: string) => `p:${fingerprint}`;
const done = (fingerprint: string, answer?: string) => (answer === undefined ? `d:${fingerprint}` : `d:${fingerprint}\n${answer}`);

function parse(value: string): KeyState {
  if (value.startsWith('p:')) return { state: 'pending', fingerprint: value.slice(2) };
  if (value.startsWith('d:')) {
    const end = value.indexOf('\n');
    return end < 0 ? { state: 'done', fingerprint: value.slice(2) } : { state: 'done', fingerprint: value.slice(2, end), answer: value.slice(end + 1) };
  }
  // Written before keys were bound to a body (an event id): done, body unknown.
  return { state: 'done', fingerprint: null };
}

export interface IdempotencyStoreOptions {
  redis: RedisClient;
  pendingTtlMs: number;
  onFailure(operation: string, err: unknown): void;
  /** The Redis key of an account's key (events by default; lookups keep theirs apart). */
  keyOf?: (accountId: string, key: string) => string;
  /** Holds no new key on a master above `keysShare` of its memory (answered as if Redis were down). */
  memoryGuard?: MemoryGuard;
  keysShare?: number;
}

export function createIdempotencyStore({
  redis,
  pendingTtlMs,
  onFailure,
  keyOf = rawEventKeys.idempotency,
  memoryGuard,
  keysShare = 0.9,
}: IdempotencyStoreOptions): IdempotencyStore {
  if (!('glimpseIdemClaim' in redis)) {
    redis.defineCommand('glimpseIdemClaim', { numberOfKeys: 1, lua: CLAIM });
    redis.defineCommand('glimpseIdemRelease', { numberOfKeys: 1, lua: RELEASE });
  }
  const client = redis as WithScripts;
  return {
    async claim(accountId, key, fingerprint) {
      if (memoryGuard && !memoryGuard.admits(keyOf(accountId, key), keysShare)) {
        onFailure('idempotency_memory_full', new Error('the Redis master of this key is above the share of memory idempotency keys may use'));
        return null;
      }
      try {
        const holder = await client.glimpseIdemClaim(keyOf(accountId, key), pending(fingerprint), pendingTtlMs);
        // null: claimed now; a value: someone holds it (an expiry in between reads as null: claimed).
        return holder === null ? { state: 'claimed' } : parse(holder);
      } catch (err) {
        onFailure('idempotency', err);
        return null;
      }
    },
    async complete(accountId, key, fingerprint, answer) {
      try {
        await redis.set(keyOf(accountId, key), done(fingerprint, answer), 'EX', RAW_EVENT_TTL_SECONDS);
      } catch (err) {
        onFailure('idempotency', err);
      }
    },
    async release(accountId, key, fingerprint) {
      try {
        await client.glimpseIdemRelease(keyOf(accountId, key), pending(fingerprint));
      } catch (err) {
        onFailure('idempotency', err);
      }
    },
  };
}
