// A per-account fixed one-second window in Redis, shared by every gateway instance. It fails
// open: when Redis is unreachable requests are let through (and the failure counted).
import type { Redis } from 'ioredis';

/** INCR and, on the window's first request, EXPIRE: one round trip and one command. */
const TAKE = `local n = redis.call('INCR', KEYS[1]) if n == 1 then redis.call('EXPIRE', KEYS[1], 2) end return n`;

type WithTake = Redis & { glimpseRateTake(key: string): Promise<number> };

export interface RateLimiter {
  /** Whether one more request fits; retryAfterSeconds is set when it does not. */
  take(accountId: string): Promise<{ allowed: boolean; retryAfterSeconds: number }>;
}

export function createRateLimiter({ redis, perSecond, onFailure }: { redis: Redis; perSecond: number; onFailure(err: unknown): void }): RateLimiter {
  if (!('glimpseRateTake' in redis)) redis.defineCommand('glimpseRateTake', { numberOfKeys: 1, lua: TAKE });
  const client = redis as WithTake;
  return {
    async take(accountId) {
      const window = Math.floor(Date.now() / 1000);
      const key = `glimpse:rate:events:${accountId}:${window}`;
      try {
        const count = Number(await client.glimpseRateTake(key));
        return { allowed: count <= perSecond, retryAfterSeconds: 1 };
      } catch (err) {
        onFailure(err);
        return { allowed: true, retryAfterSeconds: 0 };
      }
    },
  };
}
