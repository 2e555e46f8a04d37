// Wires the gateway's HTTP app from what it is given; start.ts builds the real dependencies.
import type { Redis } from 'ioredis';
import { Counter, Registry } from 'prom-client';
import type { Authenticator } from '@glimpse/auth';
import type { Db } from '@glimpse/db';
import type { Logger } from '@glimpse/logging';
import { createBaseApp, type ReadinessCheck } from '@glimpse/http';
import type { BatchingProducer } from '@glimpse/messaging';
import { createRateLimiter } from './data/rate-limiter.js';
import { createRawEventStore } from './data/raw-event-store.js';
import { eventsRouter } from './http/events-route.js';
import { lookupsRouter } from './http/lookups-route.js';
import { accountRouter } from './http/account/account-router.js';
import { consoleRouter } from './http/console-route.js';
import type { EnrichmentClient } from './data/enrichment-client.js';
import type { PlaybookClient } from './data/playbook-client.js';
import type { GatewayConfig } from './config.js';

export interface CreateGatewayOptions {
  config: Pick<GatewayConfig, 'EVENTS_RATE_LIMIT_PER_SECOND' | 'EVENTS_BODY_LIMIT_BYTES'>;
  producer: BatchingProducer;
  redis: Redis;
  authenticator: Authenticator;
  enrichment: EnrichmentClient;
  /** Credentials of the management API (event tokens, API keys). */
  db: Db;
  playbooks: PlaybookClient;
  logger: Logger;
  checks: Record<string, ReadinessCheck>;
}

export function createGatewayApp({ config, producer, redis, authenticator, enrichment, db, playbooks, logger, checks }: CreateGatewayOptions) {
  const registry = new Registry();
  const accepted = new Counter({ name: 'glimpse_events_accepted_total', help: 'Events acknowledged by Kafka and answered 200', registers: [registry] });
  const redisFailures = new Counter({
    name: 'glimpse_redis_failures_total',
    help: 'Redis operations that failed (events are still accepted)',
    labelNames: ['operation'] as const,
    registers: [registry],
  });
  const onRedisFailure = (operation: string, err: unknown) => {
    redisFailures.inc({ operation });
    logger.warn({ operation, err: (err as Error).message }, 'redis unavailable; continuing without it');
  };
  const rawStore = createRawEventStore({ redis, onFailure: onRedisFailure });
  const rateLimiter = createRateLimiter({ redis, perSecond: config.EVENTS_RATE_LIMIT_PER_SECOND, onFailure: (err) => onRedisFailure('rate_limit', err) });

  const base = createBaseApp({ logger, checks, registry });
  base.app.use(
    eventsRouter({ producer, rawStore, authenticator, rateLimiter, bodyLimitBytes: config.EVENTS_BODY_LIMIT_BYTES, onAccepted: () => accepted.inc() }),
  );
  base.app.use(lookupsRouter({ authenticator, enrichment, bodyLimitBytes: config.EVENTS_BODY_LIMIT_BYTES }));
  base.app.use(accountRouter({ authenticator, db, playbooks, enrichment, rawStore }));
  base.app.use(consoleRouter());
  return { app: base.finish(), registry };
}
