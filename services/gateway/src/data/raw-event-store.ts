// Raw events in Redis for 24 h: one key per event (SET EX) and a per-account index of recent event
// ids, at most `maxPerAccount` of them (the oldest raw copies are deleted beyond that). Redis is not the durable record (Kafka is): every write here fails
// soft, so a Redis outage never refuses an event; failures are counted and logged. Reading the
// recent events is the one call that cannot do without Redis: it answers 503 then.
import type { Redis } from 'ioredis';
import { AppError } from '@glimpse/errors';
import type { Cursor } from '@glimpse/http';
import type { InboundEvent } from '@glimpse/messaging';

export const RAW_EVENT_TTL_SECONDS = 86_400;

export const rawEventKeys = {
  event: (accountId: string, eventId: string) => `glimpse:event:${accountId}:${eventId}`,
  recent: (accountId: string) => `glimpse:recent:${accountId}`,
  idempotency: (accountId: string, key: string) => `glimpse:idem:${accountId}:${key}`,
};

export interface RawEventStore {
  save(event: InboundEvent): Promise<boolean>;
  /** The account's events of the last 24 h, newest first, strictly after `cursor` (the last of the previous page). */
  recent(accountId: string, page: { limit: number; cursor: Cursor | null }): Promise<RecentEvents>;
  /** Deletes every raw event of the person (the index entries with them); the count deleted. 503 when Redis cannot be reached. */
  erasePerson(accountId: string, email: string): Promise<number>;
  ping(): Promise<void>;
}

export type RecentEvent = Omit<InboundEvent, 'accountId'>;

export interface RecentEvents {
  items: RecentEvent[];
  /** The last event id looked at and its time, when more events follow. */
  next: Cursor | null;
}

/** ZREVRANGEBYSCORE … WITHSCORES answers [member, score, member, score, …]. */
function pairs(flat: string[]): { id: string; score: number }[] {
  const out: { id: string; score: number }[] = [];
  for (let i = 0; i + 1 < flat.length; i += 2) out.push({ id: flat[i]!, score: Number(flat[i + 1]) });
  return out;
}

function toRecentEvent(json: string | null): RecentEvent | null {
  if (json === null) return null; // expired since it was indexed
  try {
    const { eventId, event, email, properties, receivedAt } = JSON.parse(json) as InboundEvent;
    return { eventId, event, email, properties, receivedAt };
  } catch {
    return null;
  }
}

/** How often one gateway trims an account's recent-events index and refreshes its TTL. */
const INDEX_UPKEEP_MS = 1000;

/**
 * Drops index entries older than 24 h, then the oldest beyond the cap together with their raw
 * copies, and refreshes the index's TTL. Event keys are built from ARGV[3] (one Redis, not a
 * cluster: the keys of an account would need a hash tag there).
 */
const UPKEEP = `
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
local excess = redis.call('ZCARD', KEYS[1]) - tonumber(ARGV[2])
if excess > 0 then
  local ids = redis.call('ZRANGE', KEYS[1], 0, excess - 1)
  for _, id in ipairs(ids) do redis.call('DEL', ARGV[3] .. id) end
  redis.call('ZREMRANGEBYRANK', KEYS[1], 0, excess - 1)
end
redis.call('EXPIRE', KEYS[1], ARGV[4])
return math.max(excess, 0)`;

type WithUpkeep = Redis & { glimpseRecentUpkeep(key: string, cutoffMs: number, max: number, eventPrefix: string, ttl: number): Promise<number> };

export interface RawEventStoreOptions {
  redis: Redis;
  /** Raw events kept per account (the newest); older ones are deleted. */
  maxPerAccount?: number;
  onFailure(operation: string, err: unknown): void;
}

export function createRawEventStore({ redis, maxPerAccount = 10_000, onFailure }: RawEventStoreOptions): RawEventStore {
  const lastUpkeep = new Map<string, number>();
  if (!('glimpseRecentUpkeep' in redis)) redis.defineCommand('glimpseRecentUpkeep', { numberOfKeys: 1, lua: UPKEEP });

  /** Trimming and re-expiring the index on every event would double the Redis work per event. */
  function upkeepDue(accountId: string, now: number): boolean {
    const last = lastUpkeep.get(accountId) ?? 0;
    if (now - last < INDEX_UPKEEP_MS) return false;
    if (lastUpkeep.size > 100_000) lastUpkeep.clear();
    lastUpkeep.set(accountId, now);
    return true;
  }

  return {
    async save(event) {
      const receivedAtMs = Date.parse(event.receivedAt);
      const recent = rawEventKeys.recent(event.accountId);
      try {
        const pipeline = redis
          .pipeline()
          .set(rawEventKeys.event(event.accountId, event.eventId), JSON.stringify(event), 'EX', RAW_EVENT_TTL_SECONDS)
          .zadd(recent, receivedAtMs, event.eventId);
        if (upkeepDue(event.accountId, receivedAtMs)) {
          (pipeline as unknown as WithUpkeep).glimpseRecentUpkeep(
            recent,
            receivedAtMs - RAW_EVENT_TTL_SECONDS * 1000,
            maxPerAccount,
            rawEventKeys.event(event.accountId, ''),
            RAW_EVENT_TTL_SECONDS,
          );
        }
        const results = (await pipeline.exec()) ?? [];
        const failed = results.find(([err]) => err);
        if (failed) throw failed[0];
        return true;
      } catch (err) {
        onFailure('save', err);
        return false;
      }
    },
    async recent(accountId, { limit, cursor }) {
      const index = rawEventKeys.recent(accountId);
      // Nothing received 24 h ago or earlier (exclusive bound), even if its index entry lingers.
      const cutoffMs = Date.now() - RAW_EVENT_TTL_SECONDS * 1000;
      const oldest = `(${cutoffMs}`;
      try {
        let ids: { id: string; score: number }[];
        if (!cursor) {
          ids = pairs(await redis.zrevrangebyscore(index, '+inf', oldest, 'WITHSCORES', 'LIMIT', 0, limit + 1));
        } else {
          // Keyset on (score, id), both descending: the ids tied at the cursor's time that sort
          // before its id, then everything strictly older.
          const at = cursor.at.getTime();
          const results = await redis
            .pipeline()
            .zrevrangebyscore(index, at, at, 'WITHSCORES')
            .zrevrangebyscore(index, `(${at}`, oldest, 'WITHSCORES', 'LIMIT', 0, limit + 1)
            .exec();
          const [tied, older] = (results ?? []).map(([err, value]) => {
            if (err) throw err;
            return pairs(value as string[]);
          });
          ids = [...(at > cutoffMs ? (tied ?? []).filter((e) => e.id < cursor.id) : []), ...(older ?? [])];
        }
        const page = ids.slice(0, limit);
        const values = page.length === 0 ? [] : await redis.mget(page.map((e) => rawEventKeys.event(accountId, e.id)));
        const items = values.map(toRecentEvent).filter((e): e is RecentEvent => e !== null);
        const last = page[page.length - 1];
        return { items, next: ids.length > limit && last ? { at: new Date(last.score), id: last.id } : null };
      } catch (err) {
        onFailure('recent', err);
        throw new AppError('service_unavailable', 'recent events are unavailable right now; retry later', { cause: err, headers: { 'Retry-After': '1' } });
      }
    },
    async erasePerson(accountId, email) {
      const index = rawEventKeys.recent(accountId);
      try {
        // The whole index (at most maxPerAccount ids), read in chunks; a raw copy that names the
        // email goes with its index entry. An id whose copy has expired is only an id.
        const ids = await redis.zrange(index, 0, -1);
        let deleted = 0;
        for (let i = 0; i < ids.length; i += 500) {
          const chunk = ids.slice(i, i + 500);
          const values = await redis.mget(chunk.map((id) => rawEventKeys.event(accountId, id)));
          const theirs = chunk.filter((_, j) => {
            const value = values[j];
            if (value === null || value === undefined) return false;
            try {
              return (JSON.parse(value) as InboundEvent).email === email;
            } catch {
              return false;
            }
          });
          if (theirs.length === 0) continue;
          await redis
            .pipeline()
            .del(...theirs.map((id) => rawEventKeys.event(accountId, id)))
            .zrem(index, ...theirs)
            .exec();
          deleted += theirs.length;
        }
        return deleted;
      } catch (err) {
        onFailure('erase', err);
        throw new AppError('service_unavailable', 'the raw events cannot be erased right now; retry later (erasing again is safe)', { cause: err, headers: { 'Retry-After': '1' } });
      }
    },
    async ping() {
      await redis.ping();
    },
  };
}
