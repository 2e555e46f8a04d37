// Fixed one-second windows in Redis, shared by every gateway instance: per account on POST
// /events, per API key on the lookups and the management API. It fails open: when Redis is
// unreachable requests are let through (and the failure counted); lookups never depend on Redis.
import type { Redis } from 'ioredis';

/** INCR and, on the window's first request, EXPIRE: one round trip and one command. */
const TAKE = `local n = redis.call('INCR', KEYS[1]) if n == 1 then redis.call('EXPIRE', KEYS[1], 2) end return n`;

type WithTake = Redis & { glimpseRateTake(key: string): Promise<number> };

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
  /** Counts one request of `subject` and says whether it fits. */
  take(subject: string): Promise<RateDecision>;
}

export function createRateLimiter({ redis, name, perSecond, onFailure }: { redis: Redis; name: string; perSecond: number; onFailure(err: unknown): void }): RateLimiter {
  if (!('glimpseRateTake' in redis)) redis.defineCommand('glimpseRateTake', { numberOfKeys: 1, lua: TAKE });
  const client = redis as WithTake;
  return {
    limit: perSecond,
    async take(subject) {
      const window = Math.floor(Date.now() / 1000);
      const key = `glimpse:rate:${name}:${subject}:${window}`;
      try {
        const count = Number(await client.glimpseRateTake(key));
        return { allowed: count <= perSecond, limit: perSecond, remaining: Math.max(0, perSecond - count), resetSeconds: 1 };
      } catch (err) {
        onFailure(err);
        return { allowed: true, limit: perSecond, remaining: perSecond, resetSeconds: 1 };
      }
    },
  };
}
