// Starts the gateway: Kafka producer, Redis, Postgres (credentials), HTTP, the publisher of account
// events (the identity outbox); drains on SIGTERM.
// It starts whatever is down: the HTTP server listens at once, /readyz says what is missing, and
// Kafka, Redis and Postgres are connected when they come.
import { createRedisClient } from './data/redis-client.js';
import { createMemoryGuard } from './data/memory-guard.js';
import { Counter, Registry } from 'prom-client';
import { createAuthenticator } from '@glimpse/auth';
import { createDb } from '@glimpse/db';
import { createHttpServer } from '@glimpse/http';
import { createLogger, type Logger } from '@glimpse/logging';
import { TOPICS, boundedSendSettings, createBatchingProducer, createKafka, createKafkaHealthCheck, kafkaSecurity } from '@glimpse/messaging';
import { createGatewayApp } from './app.js';
import { startAccountEventsPublisher } from './data/account-events-publisher.js';
import { createAddressLimiter } from './data/address-limiter.js';
import { createEnrichmentClient } from './data/enrichment-client.js';
import { createPlaybookClient } from './data/playbook-client.js';
import { createWebhooksClient } from './data/webhooks-client.js';
import { createVisitorsClient } from './data/visitors-client.js';
import { loadConfig, type GatewayConfig } from './config.js';

export interface RunningGateway {
  url: string;
  port: number;
  stop(): Promise<void>;
}

export async function startGateway(config: GatewayConfig = loadConfig(), logger: Logger = createLogger({ service: 'gateway', level: config.LOG_LEVEL })): Promise<RunningGateway> {
  const registry = new Registry();
  const db = createDb({
    databaseUrl: config.DATABASE_URL,
    poolSize: 5,
    timeouts: {
      connectTimeoutMs: config.DB_CONNECT_TIMEOUT_MS,
      statementTimeoutMs: config.DB_STATEMENT_TIMEOUT_MS,
      idleInTransactionTimeoutMs: config.DB_IDLE_IN_TRANSACTION_TIMEOUT_MS,
      idleTimeoutMs: config.DB_IDLE_TIMEOUT_MS,
    },
  });
  const redis = createRedisClient(config);
  redis.on('error', () => undefined); // counted where it matters; reconnects on its own
  const memoryGuard = createMemoryGuard({ redis, fraction: config.REDIS_RAW_MEMORY_FRACTION });
  redis.connect().catch((err: Error) => logger.warn({ err: err.message }, 'redis not reachable at start; continuing without it'));

  // Each Kafka request is bounded so that a whole send ends inside the send timeout: a client told
  // 503 is never followed by the write landing after all.
  const send = boundedSendSettings(config.KAFKA_SEND_TIMEOUT_MS);
  const kafka = createKafka({
    brokers: config.KAFKA_BROKERS,
    security: kafkaSecurity(config),
    clientId: 'glimpse-gateway',
    logger,
    retry: send.clientRetry,
    connectionTimeoutMs: send.connectionTimeout,
    requestTimeoutMs: send.requestTimeout,
  });
  const lateAcks = new Counter({ name: 'glimpse_kafka_late_acknowledgements_total', help: 'Events Kafka acknowledged after their client had been answered 503', registers: [registry] });
  const producer = createBatchingProducer({
    kafka,
    lingerMs: config.KAFKA_LINGER_MS,
    maxBatch: config.KAFKA_MAX_BATCH,
    maxBatchBytes: config.KAFKA_MAX_BATCH_BYTES,
    sendTimeoutMs: config.KAFKA_SEND_TIMEOUT_MS,
    requestBudgetMs: send.worstCaseMs,
    retry: send.producerRetry,
    onLateAcknowledgement: (n) => {
      lateAcks.inc(n);
      logger.warn({ events: n }, 'kafka acknowledged events after their clients were answered 503');
    },
  });
  if (!(await producer.startConnecting())) logger.warn('kafka not reachable at start; unready until it is, connecting in the background');
  const kafkaHealth = createKafkaHealthCheck({ kafka, topic: TOPICS.eventsInbound });

  const authOutcomes = new Counter({ name: 'glimpse_auth_checks_total', help: 'Credential checks by outcome', labelNames: ['outcome'] as const, registers: [registry] });
  const addressLimiter = createAddressLimiter({ perSecond: config.AUTH_LOOKUPS_PER_IP_PER_SECOND, burst: config.AUTH_LOOKUPS_PER_IP_BURST });
  const authenticator = createAuthenticator({
    db,
    cacheTtlMs: config.AUTH_CACHE_TTL_MS,
    staleIfErrorMs: config.AUTH_STALE_IF_ERROR_MS,
    negativeTtlMs: config.AUTH_NEGATIVE_CACHE_TTL_MS,
    maxEntries: config.AUTH_CACHE_MAX_ENTRIES,
    admitLookup: (ip) => {
      const d = addressLimiter.take(ip);
      return { allowed: d.allowed, retryAfterSeconds: d.resetSeconds };
    },
    observe: (outcome) => authOutcomes.inc({ outcome }),
  });

  const enrichment = createEnrichmentClient({ baseUrl: config.ENRICHMENT_URL, internalToken: config.INTERNAL_TOKEN, timeoutMs: config.LOOKUP_TIMEOUT_MS });
  const playbooks = createPlaybookClient({ baseUrl: config.PLAYBOOK_URL, internalToken: config.INTERNAL_TOKEN, timeoutMs: config.LOOKUP_TIMEOUT_MS });
  const webhooks = createWebhooksClient({ baseUrl: config.WEBHOOKS_URL, internalToken: config.INTERNAL_TOKEN, timeoutMs: config.LOOKUP_TIMEOUT_MS });
  const visitors = createVisitorsClient({ baseUrl: config.VISITORS_URL, internalToken: config.INTERNAL_TOKEN, timeoutMs: config.LOOKUP_TIMEOUT_MS });
  const { app } = createGatewayApp({
    config,
    producer,
    redis,
    memoryGuard,
    authenticator,
    addressLimiter,
    enrichment,
    db,
    playbooks,
    webhooks,
    visitors,
    logger,
    registry,
    checks: {
      // POST /events needs Kafka and nothing else: only Kafka makes the gateway unready.
      kafka: async () => {
        if (!producer.isConnected()) throw new Error('producer not connected');
        await kafkaHealth.check();
      },
      // Known credentials are served from the cache while Postgres is down, and lookups have
      // their own service: reported, but no reason to take the gateway out of the load balancer.
      postgres: { optional: true, check: async () => { await db.$queryRaw`SELECT 1`; } },
      redis: { optional: true, check: async () => { await redis.ping(); } },
    },
  });
  // The outbox of account events goes to the accounts topic through the same producer.
  const accountEvents = startAccountEventsPublisher({ db, producer, intervalMs: config.ACCOUNT_EVENTS_PUBLISH_INTERVAL_MS, logger, registry });
  const server = createHttpServer({ app, port: config.PORT, host: config.HOST });
  const address = await server.start();
  logger.info({ port: address.port }, 'gateway listening');

  return {
    ...address,
    async stop() {
      await server.stop();
      await accountEvents.stop();
      await producer.disconnect();
      await kafkaHealth.close();
      await enrichment.close();
      await playbooks.close();
      await webhooks.close();
      await visitors.close();
      memoryGuard.stop();
      redis.disconnect();
      await db.$disconnect();
      logger.info('gateway stopped');
    },
  };
}
