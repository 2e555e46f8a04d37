// Idempotency keys in Redis, bound to the fingerprint of the event they were first used with.
// A key is "pending" while its first send is in flight (for a short TTL, so a gateway that dies
// mid-send does not hold it for long) and "done" for 24 h once Kafka acknowledged the event.
// Every call fails soft (null): without Redis, duplicates are not detected, and the event id
// derived from the key and fingerprint lets the playbook service drop a repeat instead.
//
// Each account has a budget of keys held, in count and bytes (docs/decisions/bounded-growth.md, "Bounded
// growth"), counted per hour of claim over the last 25 hours in one small hash per account
// (`…:idembudget`, shared by the events' and the lookups' keys) and checked in the claim's own
// script: over it, a new key is not stored and the claim answers 'over_budget', so one account
// cannot fill a Redis master and take idempotency from the others. A key counts from its claim
// for 25 hours whether it was completed, released or expired (a little over, never under).
import type { IdempotencyStore, KeyState } from '../domain/idempotency-store.js';
import type { MemoryGuard } from './memory-guard.js';
import type { RedisClient } from './redis-client.js';
import { rawEventKeys, RAW_EVENT_TTL_SECONDS } from './raw-event-store.js';

export type { IdempotencyStore };

const budgetKey = rawEventKeys.idempotencyBudget;

/** Hours a claimed key counts against its account's budget: a done key lives 24 h after its send. */
const BUDGET_HOURS = 25;
/** What a key costs beyond its name and value (Redis's own structures), roughly. */
const KEY_OVERHEAD_BYTES = 64;
const hourOf = (ms: number) => Math.floor(ms / 3_600_000);

/**
 * KEYS: the key, the account's budget hash. ARGV: the pending value, its TTL, the hour, the key's
 * bytes, the count budget, the byte budget. The value that holds the key (a retry), or, for a new
 * key, false once stored, or 0 when the account is over its budget (nothing stored). Hours before
 * the last 25 are forgotten as the oldest field ('o') moves on.
 */
const CLAIM = `
local held = redis.call('GET', KEYS[1])
if held then return held end
local meta, hour, bytes = KEYS[2], tonumber(ARGV[3]), tonumber(ARGV[4])
local oldest = tonumber(redis.call('HGET', meta, 'o') or hour)
if oldest > hour then oldest = hour end
while oldest <= hour - ${BUDGET_HOURS} do
  redis.call('HDEL', meta, 'n:' .. oldest, 'b:' .. oldest); oldest = oldest + 1
end
local n, b = 0, 0
for h = oldest, hour do
  n = n + tonumber(redis.call('HGET', meta, 'n:' .. h) or '0')
  b = b + tonumber(redis.call('HGET', meta, 'b:' .. h) or '0')
end
if n + 1 > tonumber(ARGV[5]) or b + bytes > tonumber(ARGV[6]) then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
redis.call('HINCRBY', meta, 'n:' .. hour, 1)
redis.call('HINCRBY', meta, 'b:' .. hour, bytes)
redis.call('HSET', meta, 'o', oldest)
redis.call('EXPIRE', meta, ${BUDGET_HOURS * 3600})
return false`;
/** KEYS: the budget hash. ARGV: the hour, bytes more (a kept answer). */
const ADD_BYTES = `if redis.call('EXISTS', KEYS[1]) == 1 then redis.call('HINCRBY', KEYS[1], 'b:' .. ARGV[1], ARGV[2]) end return 1`;
const RELEASE = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0`;

type WithScripts = RedisClient & {
  glimpseIdemBudgetClaim(
    key: string,
    meta: string,
    value: string,
    ttlMs: number,
    hour: number,
    bytes: number,
    maxCount: number,
    maxBytes: number,
  ): Promise<string | number | null>;
  glimpseIdemAddBytes(meta: string, hour: number, bytes: number): Promise<number>;
  glimpseIdemRelease(key: string, value: string): Promise<number>;
};

const pending = (fingerprint: string) => `p:${fingerprint}`;
// A key of a lookup also keeps the answer it was first given (`d:<fingerprint>\n<answer>`), so a
// retry is answered the same without being billed again.
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
  /** Per account, keys held (counted over 25 h) and their bytes; a new key over either is refused. */
  budget: { maxCount: number; maxBytes: number };
}

export function createIdempotencyStore({
  redis,
  pendingTtlMs,
  onFailure,
  keyOf = rawEventKeys.idempotency,
  memoryGuard,
  keysShare = 0.9,
  budget,
}: IdempotencyStoreOptions): IdempotencyStore {
  if (!('glimpseIdemBudgetClaim' in redis)) {
    redis.defineCommand('glimpseIdemBudgetClaim', { numberOfKeys: 2, lua: CLAIM });
    redis.defineCommand('glimpseIdemAddBytes', { numberOfKeys: 1, lua: ADD_BYTES });
  }
  if (!('glimpseIdemRelease' in redis)) redis.defineCommand('glimpseIdemRelease', { numberOfKeys: 1, lua: RELEASE });
  const client = redis as WithScripts;
  return {
    async claim(accountId, key, fingerprint) {
      if (memoryGuard && !memoryGuard.admits(keyOf(accountId, key), keysShare)) {
        onFailure('idempotency_memory_full', new Error('the Redis master of this key is above the share of memory idempotency keys may use'));
        return null;
      }
      try {
        const redisKey = keyOf(accountId, key);
        const value = pending(fingerprint);
        const bytes = Buffer.byteLength(redisKey) + value.length + KEY_OVERHEAD_BYTES;
        const holder = await client.glimpseIdemBudgetClaim(
          redisKey,
          budgetKey(accountId),
          value,
          pendingTtlMs,
          hourOf(Date.now()),
          bytes,
          budget.maxCount,
          budget.maxBytes,
        );
        // null: claimed now; 0: the account is over its budget; a value: someone holds it.
        if (holder === null) return { state: 'claimed' };
        return typeof holder === 'number' ? { state: 'over_budget' } : parse(holder);
      } catch (err) {
        onFailure('idempotency', err);
        return null;
      }
    },
    async complete(accountId, key, fingerprint, answer) {
      try {
        await redis.set(keyOf(accountId, key), done(fingerprint, answer), 'EX', RAW_EVENT_TTL_SECONDS);
        // A kept answer (a lookup's) is counted too, in the hour it was kept.
        if (answer !== undefined) await client.glimpseIdemAddBytes(budgetKey(accountId), hourOf(Date.now()), Buffer.byteLength(answer));
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
