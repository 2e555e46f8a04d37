// Fixed one-second windows in Redis, shared by every gateway instance: per account on POST
// /events, per API key on the lookups and the management API. It fails open: when Redis is
// unreachable requests are let through (and the failure counted); lookups never depend on Redis.
import type { Redis } from 'ioredis';

/** INCRBY and, on the window's first request, EXPIRE: one round trip and one command. */
const TAKE = `local n = redis.call('INCRBY', KEYS[1], ARGV[1]) if n == tonumber(ARGV[1]) then redis.call('EXPIRE', KEYS[1], 2) end return n`;

type WithTake = Redis & { glimpseRateTake(key: string, count: number): Promise<number> };

export interface RateDecision {
  allowed: boolean;
  limit: number;
  /** Requests left in this window (0 when refused). */
  remaining: number;
  /** Seconds until the window resets; also the Retry-After of a refusal. */
  resetSeconds: number;
}

export interface RateLimiter {
  readonly limit: number;
  /** Counts `count` requests (the events of a batch) of `subject` and says whether they fit. */
  take(subject: string, count?: number): Promise<RateDecision>;
}

export function createRateLimiter({ redis, name, perSecond, onFailure }: { redis: Redis; name: string; perSecond: number; onFailure(err: unknown): void }): RateLimiter {
  if (!('glimpseRateTake' in redis)) redis.defineCommand('glimpseRateTake', { numberOfKeys: 1, lua: TAKE });
  const client = redis as WithTake;
  return {
    limit: perSecond,
    async take(subject, n = 1) {
      const window = Math.floor(Date.now() / 1000);
      const key = `glimpse:rate:${name}:${subject}:${window}`;
      try {
        const count = Number(await client.glimpseRateTake(key, n));
        return { allowed: count <= perSecond, limit: perSecond, remaining: Math.max(0, perSecond - count), resetSeconds: 1 };
      } catch (err) {
        onFailure(err);
        return { allowed: true, limit: perSecond, remaining: perSecond, resetSeconds: 1 };
      }
    },
  };
}
