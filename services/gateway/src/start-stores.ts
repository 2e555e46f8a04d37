// The gateway's stores as startGateway opens them: Postgres (credentials, sites, the identity
// outbox) with its pool and timeouts, and Redis with its memory guard, connected in the
// background so that a Redis that is down at start does not stop the gateway from listening.
import { createDb, type Db } from '@glimpse/db';
import type { Logger } from '@glimpse/logging';
import type { GatewayConfig } from './config.js';
import { createMemoryGuard, type MemoryGuard } from './data/memory-guard.js';
import { createRedisClient, type RedisClient } from './data/redis-client.js';

export function createGatewayDb(config: GatewayConfig): Db {
  return createDb({
    databaseUrl: config.DATABASE_URL,
    poolSize: 5,
    timeouts: {
      connectTimeoutMs: config.DB_CONNECT_TIMEOUT_MS,
      statementTimeoutMs: config.DB_STATEMENT_TIMEOUT_MS,
      idleInTransactionTimeoutMs: config.DB_IDLE_IN_TRANSACTION_TIMEOUT_MS,
      idleTimeoutMs: config.DB_IDLE_TIMEOUT_MS,
    },
  });
}

export function startRedis(config: GatewayConfig, logger: Logger): { redis: RedisClient; memoryGuard: MemoryGuard } {
  const redis = createRedisClient(config);
  redis.on('error', () => undefined); // counted where it matters; reconnects on its own
  const memoryGuard = createMemoryGuard({ redis, fraction: config.REDIS_RAW_MEMORY_FRACTION });
  redis.connect().catch((err: Error) => logger.warn({ err: err.message }, 'redis not reachable at start; continuing without it'));
  return { redis, memoryGuard };
}
