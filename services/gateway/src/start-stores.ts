// Redis as startGateway opens it, with its memory guard, connected in the background so that a
// Redis that is down at start does not stop the gateway from listening.
import type { Logger } from '@glimpse/logging';
import type { GatewayConfig } from './config.js';
import { createMemoryGuard, type MemoryGuard } from './data/memory-guard.js';
import { createRedisClient, type RedisClient } from './data/redis-client.js';

export function startRedis(config: GatewayConfig, logger: Logger): { redis: RedisClient; memoryGuard: MemoryGuard } {
  const redis = createRedisClient(config);
  redis.on('error', () => undefined); // counted where it matters; reconnects on its own
  const memoryGuard = createMemoryGuard({ redis, fraction: config.REDIS_RAW_MEMORY_FRACTION });
  redis.connect().catch((err: Error) => logger.warn({ err: err.message }, 'redis not reachable at start; continuing without it'));
  return { redis, memoryGuard };
}
