// Raw events in Redis for 24 h: one key per event (SET EX), a per-account index of recent event
// ids, and idempotency keys. Redis is not the durable record (Kafka is): every call here fails
// soft, so a Redis outage never refuses an event; failures are counted and logged.
import type { Redis } from 'ioredis';
import type { InboundEvent } from '@glimpse/messaging';

export const RAW_EVENT_TTL_SECONDS = 86_400;

export const rawEventKeys = {
  event: (accountId: string, eventId: string) => `glimpse:event:${accountId}:${eventId}`,
  recent: (accountId: string) => `glimpse:recent:${accountId}`,
  idempotency: (accountId: string, key: string) => `glimpse:idem:${accountId}:${key}`,
};

export interface RawEventStore {
  save(event: InboundEvent): Promise<boolean>;
  /** Claims an idempotency key for an event id; false when it was already claimed. Null when Redis is unavailable. */
  claimIdempotencyKey(accountId: string, key: string, eventId: string): Promise<boolean | null>;
  releaseIdempotencyKey(accountId: string, key: string): Promise<void>;
  ping(): Promise<void>;
}

export function createRawEventStore({ redis, onFailure }: { redis: Redis; onFailure(operation: string, err: unknown): void }): RawEventStore {
  return {
    async save(event) {
      const receivedAtMs = Date.parse(event.receivedAt);
      const recent = rawEventKeys.recent(event.accountId);
      try {
        await redis
          .multi()
          .set(rawEventKeys.event(event.accountId, event.eventId), JSON.stringify(event), 'EX', RAW_EVENT_TTL_SECONDS)
          .zadd(recent, receivedAtMs, event.eventId)
          .zremrangebyscore(recent, '-inf', receivedAtMs - RAW_EVENT_TTL_SECONDS * 1000)
          .expire(recent, RAW_EVENT_TTL_SECONDS)
          .exec();
        return true;
      } catch (err) {
        onFailure('save', err);
        return false;
      }
    },
    async claimIdempotencyKey(accountId, key, eventId) {
      try {
        const result = await redis.set(rawEventKeys.idempotency(accountId, key), eventId, 'EX', RAW_EVENT_TTL_SECONDS, 'NX');
        return result === 'OK';
      } catch (err) {
        onFailure('idempotency', err);
        return null;
      }
    },
    async releaseIdempotencyKey(accountId, key) {
      try {
        await redis.del(rawEventKeys.idempotency(accountId, key));
      } catch (err) {
        onFailure('idempotency', err);
      }
    },
    async ping() {
      await redis.ping();
    },
  };
}
