// A per-account fixed one-second window in Redis, shared by every gateway instance. It fails
// open: when Redis is unreachable requests are let through (and the failure counted).
import type { Redis } from 'ioredis';

export interface RateLimiter {
  /** Whether one more request fits; retryAfterSeconds is set when it does not. */
  take(accountId: string): Promise<{ allowed: boolean; retryAfterSeconds: number }>;
}

export function createRateLimiter({ redis, perSecond, onFailure }: { redis: Redis; perSecond: number; onFailure(err: unknown): void }): RateLimiter {
  return {
    async take(accountId) {
      const window = Math.floor(Date.now() / 1000);
      const key = `glimpse:rate:events:${accountId}:${window}`;
      try {
        const results = await redis.multi().incr(key).expire(key, 2).exec();
        const count = Number(results?.[0]?.[1] ?? 0);
        return { allowed: count <= perSecond, retryAfterSeconds: 1 };
      } catch (err) {
        onFailure(err);
        return { allowed: true, retryAfterSeconds: 0 };
      }
    },
  };
}
