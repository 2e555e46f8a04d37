// Raw events in Redis for at most 24 h, in a layout that fits many (docs/decisions/redis.md, "Raw copies
// in Redis Streams"): per account, one Redis Stream per ten minutes of receipt
// (`glimpse:{a:<account>}:raw:<bucket>`), each entry one compact value (raw-event-codec.ts), the
// stream expiring 24 h after its ten minutes began, so every copy is gone at most 86 400 s after
// it was received. A small hash per account (`…:rawmeta`) keeps each bucket's bytes, copies and
// drops. The stream is its own index: newest first is XREVRANGE, bucket after bucket.
//
// Each account has a budget, in bytes and in copies, enforced on write in the same script: over
// it, the account's oldest copies go (never another account's), counted per bucket so the recent
// answer can say how many were dropped in the last 24 h. Every key of an account carries the hash
// tag {a:<account>}, so each script and pipeline stays in one slot of a Redis Cluster.
//
// Redis is not the durable record (Kafka is): saving fails soft, so a Redis outage never refuses
// an event; a copy not written is counted as missed. Reading and erasing cannot do without Redis:
// they answer 503 then.
import { AppError } from '@glimpse/errors';
import { cutPage } from '@glimpse/http';
import type { InboundEvent } from '@glimpse/messaging';
import { decodeRawEvent, encodeRawEvent, type StoredEvent } from './raw-event-codec.js';
import type { MemoryGuard } from './memory-guard.js';
import type { RedisClient } from './redis-client.js';

export const RAW_EVENT_TTL_SECONDS = 86_400;
/** Seconds of receipt per stream. */
export const RAW_BUCKET_SECONDS = 600;
/** The rawmeta hash outlives its newest bucket a little. */
const META_TTL_SECONDS = RAW_EVENT_TTL_SECONDS + RAW_BUCKET_SECONDS;

const tag = (accountId: string) => `glimpse:{a:${accountId}}`;

export const rawEventKeys = {
  bucket: (accountId: string, bucket: number) => `${tag(accountId)}:raw:${bucket}`,
  bucketPrefix: (accountId: string) => `${tag(accountId)}:raw:`,
  meta: (accountId: string) => `${tag(accountId)}:rawmeta`,
  idempotency: (accountId: string, key: string) => `${tag(accountId)}:idem:${key}`,
  lookupIdempotency: (accountId: string, key: string) => `${tag(accountId)}:lidem:${key}`,
  /** The account's budget of idempotency keys (idempotency-store.ts). */
  idempotencyBudget: (accountId: string) => `${tag(accountId)}:idembudget`,
};

export const bucketOf = (ms: number) => Math.floor(ms / 1000 / RAW_BUCKET_SECONDS);
/** When a bucket's stream expires (seconds since the epoch). */
export const bucketExpiresAt = (bucket: number) => bucket * RAW_BUCKET_SECONDS + RAW_EVENT_TTL_SECONDS;
/** The oldest bucket still alive at `ms`. */
export const oldestLiveBucket = (ms: number) => Math.floor((ms / 1000 - RAW_EVENT_TTL_SECONDS) / RAW_BUCKET_SECONDS) + 1;

export type RecentEvent = StoredEvent;

export interface RecentEvents {
  items: RecentEvent[];
  /** Where the next page starts (opaque), when more events follow. */
  next: string | null;
  /** Raw copies of the account dropped in the last 24 h to keep within its budget. */
  dropped: number;
}

export interface RawEventStore {
  save(event: InboundEvent): Promise<boolean>;
  /** The account's events of the last 24 h, newest first, after `cursor` (a previous page's `next`). */
  recent(accountId: string, page: { limit: number; cursor: string | null }): Promise<RecentEvents>;
  /** Deletes every raw copy of the person's events; the count deleted. 503 when Redis cannot be reached. */
  erasePerson(accountId: string, email: string): Promise<number>;
  ping(): Promise<void>;
}

/**
 * KEYS: rawmeta, the bucket's stream. ARGV: value, bucket, its expiry, byte budget, copy budget,
 * oldest live bucket, the buckets' key prefix, rawmeta's TTL. Appends the copy; forgets buckets
 * that have expired; then, while the account is over either budget, deletes its oldest copies.
 * Returns how many were dropped. Bucket keys other than KEYS[2] are built from ARGV[7]: they
 * share the account's hash tag, so they are in the script's slot.
 */
const SAVE = `
local meta, stream = KEYS[1], KEYS[2]
local value, bucket = ARGV[1], tonumber(ARGV[2])
local maxBytes, maxCount, cutoff, prefix = tonumber(ARGV[4]), tonumber(ARGV[5]), tonumber(ARGV[6]), ARGV[7]
redis.call('XADD', stream, '*', 'd', value)
if redis.call('HINCRBY', meta, 'n:' .. bucket, 1) == 1 then redis.call('EXPIREAT', stream, ARGV[3]) end
redis.call('HINCRBY', meta, 'b:' .. bucket, #value)
local B = redis.call('HINCRBY', meta, 'B', #value)
local N = redis.call('HINCRBY', meta, 'N', 1)
local oldest = tonumber(redis.call('HGET', meta, 'o') or bucket)
if oldest > bucket then oldest = bucket end
local function forget(b)
  local bytes = tonumber(redis.call('HGET', meta, 'b:' .. b) or '0')
  local count = tonumber(redis.call('HGET', meta, 'n:' .. b) or '0')
  if bytes ~= 0 then B = redis.call('HINCRBY', meta, 'B', -bytes) end
  if count ~= 0 then N = redis.call('HINCRBY', meta, 'N', -count) end
  redis.call('HDEL', meta, 'b:' .. b, 'n:' .. b, 'd:' .. b)
end
while oldest < cutoff do forget(oldest); oldest = oldest + 1 end
local dropped = 0
while (B > maxBytes or N > maxCount) and oldest <= bucket do
  local key = prefix .. oldest
  local entries = redis.call('XRANGE', key, '-', '+', 'COUNT', 100)
  if #entries == 0 then
    forget(oldest); redis.call('DEL', key); oldest = oldest + 1
  else
    local ids, bytes = {}, 0
    for _, e in ipairs(entries) do
      if B - bytes <= maxBytes and N - #ids <= maxCount then break end
      ids[#ids + 1] = e[1]; bytes = bytes + #e[2][2]
    end
    redis.call('XDEL', key, unpack(ids))
    redis.call('HINCRBY', meta, 'b:' .. oldest, -bytes)
    redis.call('HINCRBY', meta, 'n:' .. oldest, -#ids)
    B = redis.call('HINCRBY', meta, 'B', -bytes)
    N = redis.call('HINCRBY', meta, 'N', -#ids)
    dropped = dropped + #ids
    if redis.call('XLEN', key) == 0 then
      redis.call('DEL', key)
      if oldest < bucket then redis.call('HDEL', meta, 'b:' .. oldest, 'n:' .. oldest) end
      oldest = oldest + 1
    end
  end
end
if dropped > 0 then redis.call('HINCRBY', meta, 'd:' .. bucket, dropped) end
redis.call('HSET', meta, 'o', oldest)
redis.call('EXPIRE', meta, ARGV[8])
return dropped`;

/**
 * KEYS: rawmeta. ARGV: the buckets' key prefix, oldest live bucket, newest bucket, the bucket and
 * entry id to start after ('' for the newest), how many entries. Returns the drops of the live
 * buckets, then bucket, id and value of each entry, newest first.
 */
const RECENT = `
local meta, prefix = KEYS[1], ARGV[1]
local cutoff, newest, want = tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[6])
local from = tonumber(ARGV[4]) or newest
local out, dropped, taken = {}, 0, 0
for b = newest, cutoff, -1 do
  dropped = dropped + tonumber(redis.call('HGET', meta, 'd:' .. b) or '0')
  if b <= from and taken < want and tonumber(redis.call('HGET', meta, 'n:' .. b) or '0') > 0 then
    local high = '+'
    if b == from and ARGV[5] ~= '' then high = '(' .. ARGV[5] end
    for _, e in ipairs(redis.call('XREVRANGE', prefix .. b, high, '-', 'COUNT', want - taken)) do
      out[#out + 1] = tostring(b); out[#out + 1] = e[1]; out[#out + 1] = e[2][2]
      taken = taken + 1
    end
  end
end
table.insert(out, 1, dropped)
return out`;

/**
 * KEYS: rawmeta, one bucket's stream. ARGV: the bucket, the email, the stream's expiry. Rewrites
 * the stream without the person's copies (XDEL would only mark them deleted in memory; a new
 * stream holds none of their bytes), keeping every other entry and its id. Returns the count.
 */
const ERASE_BUCKET = `
local meta, stream, bucket, email = KEYS[1], KEYS[2], ARGV[1], ARGV[2]
local keep, removed, bytes = {}, 0, 0
for _, e in ipairs(redis.call('XRANGE', stream, '-', '+')) do
  local v = e[2][2]
  local a = string.find(v, '\\31', 1, true)
  local b = a and string.find(v, '\\31', a + 1, true)
  local c = b and string.find(v, '\\31', b + 1, true)
  if c and string.sub(v, b + 1, c - 1) == email then
    removed = removed + 1; bytes = bytes + #v
  else
    keep[#keep + 1] = e
  end
end
if removed == 0 then return 0 end
redis.call('DEL', stream)
for _, e in ipairs(keep) do redis.call('XADD', stream, e[1], 'd', e[2][2]) end
if #keep > 0 then redis.call('EXPIREAT', stream, ARGV[3]) end
redis.call('HINCRBY', meta, 'b:' .. bucket, -bytes)
redis.call('HINCRBY', meta, 'n:' .. bucket, -removed)
redis.call('HINCRBY', meta, 'B', -bytes)
redis.call('HINCRBY', meta, 'N', -removed)
return removed`;

interface Scripts {
  glimpseRawSave(
    meta: string,
    stream: string,
    value: string,
    bucket: number,
    expireAt: number,
    maxBytes: number,
    maxCount: number,
    cutoff: number,
    prefix: string,
    metaTtl: number,
  ): Promise<number>;
  glimpseRawRecent(
    meta: string,
    prefix: string,
    cutoff: number,
    newest: number,
    fromBucket: string,
    fromId: string,
    want: number,
  ): Promise<(string | number)[]>;
  glimpseRawErase(meta: string, stream: string, bucket: number, email: string, expireAt: number): Promise<number>;
}

/** A page's position: the bucket and stream entry id of its last item, base64url. */
export function encodeRecentCursor(bucket: number, id: string): string {
  return Buffer.from(`${bucket}:${id}`).toString('base64url');
}

export function decodeRecentCursor(value: string): { bucket: number; id: string } {
  const invalid = new AppError('invalid_request', 'cursor is not valid: pass the nextCursor of a previous page as it was');
  if (!/^[A-Za-z0-9_-]{1,60}$/.test(value)) throw invalid;
  const match = /^(\d{1,10}):(\d{1,16}-\d{1,10})$/.exec(Buffer.from(value, 'base64url').toString('utf8'));
  if (!match) throw invalid;
  return { bucket: Number(match[1]), id: match[2]! };
}

export interface RawEventStoreOptions {
  redis: RedisClient;
  /** Raw copies kept per account (the newest); older ones are deleted. */
  maxPerAccount?: number;
  /** Bytes of raw copies (their compact values) kept per account. */
  maxBytesPerAccount?: number;
  /** Refuses copies to a master that is short of memory (counted as missed). */
  memoryGuard?: MemoryGuard;
  onFailure(operation: string, err: unknown): void;
  /** A copy not written: Redis failed, or its master is above the raw copies' share of memory. */
  onMissed?(reason: 'redis_unavailable' | 'memory_full'): void;
  /** Copies of an account dropped to keep it within its budget. */
  onDropped?(count: number): void;
}

type ScriptedRedis = RedisClient & Scripts;

/** Defines the Lua scripts on the client once (a client shared by several stores keeps the first definitions). */
function defineRawScripts(redis: RedisClient): ScriptedRedis {
  if (!('glimpseRawSave' in redis)) {
    redis.defineCommand('glimpseRawSave', { numberOfKeys: 2, lua: SAVE });
    redis.defineCommand('glimpseRawRecent', { numberOfKeys: 1, lua: RECENT });
    redis.defineCommand('glimpseRawErase', { numberOfKeys: 2, lua: ERASE_BUCKET });
  }
  return redis as ScriptedRedis;
}

/**
 * The RECENT script's reply as a page: [dropped, then bucket, id, value for up to limit + 1
 * entries]. The extra entry only says there is a next page; an undecodable value is left out.
 */
export function recentPage(flat: readonly (string | number)[], limit: number): RecentEvents {
  const dropped = Number(flat[0] ?? 0);
  const entries: { bucket: number; id: string; event: RecentEvent | null }[] = [];
  for (let i = 1; i + 2 < flat.length; i += 3) {
    entries.push({ bucket: Number(flat[i]), id: String(flat[i + 1]), event: decodeRawEvent(String(flat[i + 2])) });
  }
  const page = cutPage(entries, limit, (last) => encodeRecentCursor(last.bucket, last.id));
  return {
    items: page.items.map((e) => e.event).filter((e): e is RecentEvent => e !== null),
    next: page.next,
    dropped,
  };
}

/** The buckets rawmeta lists (its `n:<bucket>` fields) that have not expired yet. */
export function liveBuckets(metaFields: readonly string[], cutoff: number): number[] {
  return metaFields
    .filter((f) => f.startsWith('n:'))
    .map((f) => Number(f.slice(2)))
    .filter((b) => b >= cutoff);
}

type SaveOptions = Required<Pick<RawEventStoreOptions, 'maxPerAccount' | 'maxBytesPerAccount'>> &
  Omit<RawEventStoreOptions, 'redis' | 'maxPerAccount' | 'maxBytesPerAccount'>;

async function saveRawEvent(
  client: ScriptedRedis,
  { maxPerAccount, maxBytesPerAccount, memoryGuard, onFailure, onMissed, onDropped }: SaveOptions,
  event: InboundEvent,
): Promise<boolean> {
  const receivedAtMs = Date.parse(event.receivedAt);
  const bucket = bucketOf(receivedAtMs);
  const stream = rawEventKeys.bucket(event.accountId, bucket);
  if (memoryGuard && !memoryGuard.admits(stream)) {
    onMissed?.('memory_full');
    return false;
  }
  try {
    const dropped = await client.glimpseRawSave(
      rawEventKeys.meta(event.accountId),
      stream,
      encodeRawEvent(event),
      bucket,
      bucketExpiresAt(bucket),
      maxBytesPerAccount,
      maxPerAccount,
      oldestLiveBucket(Date.now()),
      rawEventKeys.bucketPrefix(event.accountId),
      META_TTL_SECONDS,
    );
    if (dropped > 0) onDropped?.(Number(dropped));
    return true;
  } catch (err) {
    onFailure('save', err);
    onMissed?.('redis_unavailable');
    return false;
  }
}

async function readRecent(
  client: ScriptedRedis,
  onFailure: RawEventStoreOptions['onFailure'],
  accountId: string,
  { limit, cursor }: { limit: number; cursor: string | null },
): Promise<RecentEvents> {
  const from = cursor === null ? null : decodeRecentCursor(cursor);
  const now = Date.now();
  try {
    const flat = await client.glimpseRawRecent(
      rawEventKeys.meta(accountId),
      rawEventKeys.bucketPrefix(accountId),
      oldestLiveBucket(now),
      // A bucket of a gateway whose clock runs a little ahead is still found.
      bucketOf(now) + 1,
      from === null ? '' : String(from.bucket),
      from?.id ?? '',
      limit + 1,
    );
    return recentPage(flat, limit);
  } catch (err) {
    onFailure('recent', err);
    throw new AppError('service_unavailable', 'recent events are unavailable right now; retry later', { cause: err, headers: { 'Retry-After': '1' } });
  }
}

async function eraseRawPerson(client: ScriptedRedis, onFailure: RawEventStoreOptions['onFailure'], accountId: string, email: string): Promise<number> {
  const meta = rawEventKeys.meta(accountId);
  try {
    // One bucket at a time: each rewrite is atomic, and none blocks Redis for long.
    const buckets = liveBuckets(await client.hkeys(meta), oldestLiveBucket(Date.now()));
    let deleted = 0;
    for (const bucket of buckets) {
      deleted += Number(await client.glimpseRawErase(meta, rawEventKeys.bucket(accountId, bucket), bucket, email, bucketExpiresAt(bucket)));
    }
    return deleted;
  } catch (err) {
    onFailure('erase', err);
    throw new AppError('service_unavailable', 'the raw events cannot be erased right now; retry later (erasing again is safe)', {
      cause: err,
      headers: { 'Retry-After': '1' },
    });
  }
}

export function createRawEventStore({ redis, maxPerAccount = 10_000, maxBytesPerAccount = 8 * 1024 * 1024, ...hooks }: RawEventStoreOptions): RawEventStore {
  const client = defineRawScripts(redis);
  const saveOptions: SaveOptions = { maxPerAccount, maxBytesPerAccount, ...hooks };
  return {
    save: (event) => saveRawEvent(client, saveOptions, event),
    recent: (accountId, page) => readRecent(client, hooks.onFailure, accountId, page),
    erasePerson: (accountId, email) => eraseRawPerson(client, hooks.onFailure, accountId, email),
    async ping() {
      await redis.ping();
    },
  };
}
