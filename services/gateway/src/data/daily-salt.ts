// The salt of cookieless ids: 32 random bytes per UTC day, shared by every gateway through Redis
// (`glimpse:salt:YYYY-MM-DD`, SET NX so the first gateway's wins, expiring after 48 h so no past
// day's salt survives; never in Postgres), kept in memory for the day. When Redis cannot answer, a
// salt of this process for the day is used and counted (`onFallback`): cookieless ids then differ
// between gateways until Redis answers again (retried every `retryMs`), so one browser may count
// as more than one visitor for that while; nothing worse.
import { randomBytes } from 'node:crypto';
import type { RedisClient } from './redis-client.js';
import { saltDay } from '../domain/cookieless-id.js';

const SALT_TTL_SECONDS = 48 * 3600;

export interface DailySalt {
  /** The salt of `now`'s UTC day. */
  get(now?: Date): Promise<Buffer>;
}

/** The salt this process holds in memory, and its day. */
interface SaltOfTheDay {
  day: string;
  salt: Buffer;
  /** Only for a salt of this process: when to ask Redis again. */
  retryAt?: number;
}

export function createDailySalt({ redis, onFallback, retryMs = 30_000 }: { redis: RedisClient; onFallback(err: unknown): void; retryMs?: number }): DailySalt {
  let held: SaltOfTheDay | undefined;
  let pending: Promise<Buffer> | undefined;

  async function fromRedis(day: string): Promise<Buffer> {
    const key = `glimpse:salt:${day}`;
    await redis.set(key, randomBytes(32).toString('hex'), 'EX', SALT_TTL_SECONDS, 'NX');
    const stored = await redis.get(key);
    if (stored === null || !/^[0-9a-f]{64}$/.test(stored)) throw new Error('the day salt was not readable back from Redis');
    return Buffer.from(stored, 'hex');
  }

  async function load(day: string): Promise<Buffer> {
    try {
      const salt = await fromRedis(day);
      held = { day, salt };
      return salt;
    } catch (err) {
      onFallback(err);
      // Keep this process's fallback for the day (stable ids here) rather than a new one per retry.
      const salt = held?.day === day ? held.salt : randomBytes(32);
      held = { day, salt, retryAt: Date.now() + retryMs };
      return salt;
    }
  }

  return {
    get(now = new Date()) {
      const day = saltDay(now);
      if (held?.day === day && (held.retryAt === undefined || Date.now() < held.retryAt)) return Promise.resolve(held.salt);
      pending ??= load(day).finally(() => {
        pending = undefined;
      });
      return pending;
    },
  };
}
