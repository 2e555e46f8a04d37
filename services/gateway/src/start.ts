// Starts the gateway: Kafka producer, Redis, Postgres (credentials), HTTP; drains on SIGTERM.
import { Redis } from 'ioredis';
import { createAuthenticator } from '@glimpse/auth';
import { createDb } from '@glimpse/db';
import { createHttpServer } from '@glimpse/http';
import { createLogger, type Logger } from '@glimpse/logging';
import { TOPICS, createBatchingProducer, createKafka, createKafkaHealthCheck, retryWithin } from '@glimpse/messaging';
import { createGatewayApp } from './app.js';
import { createEnrichmentClient } from './data/enrichment-client.js';
import { createPlaybookClient } from './data/playbook-client.js';
import { loadConfig, type GatewayConfig } from './config.js';

export interface RunningGateway {
  url: string;
  port: number;
  stop(): Promise<void>;
}

export async function startGateway(config: GatewayConfig = loadConfig(), logger: Logger = createLogger({ service: 'gateway', level: config.LOG_LEVEL })): Promise<RunningGateway> {
  const db = createDb({ databaseUrl: config.DATABASE_URL, poolSize: 5 });
  const redis = new Redis(config.REDIS_URL, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    commandTimeout: 500,
    enableAutoPipelining: true,
    lazyConnect: true,
  });
  redis.on('error', () => undefined); // counted where it matters; reconnects on its own
  redis.connect().catch((err: Error) => logger.warn({ err: err.message }, 'redis not reachable at start; continuing without it'));

  // Retries fit inside the send timeout: once a client has been answered 503, no retry writes the event after all.
  const kafka = createKafka({ brokers: config.KAFKA_BROKERS, clientId: 'glimpse-gateway', logger, retry: retryWithin(config.KAFKA_SEND_TIMEOUT_MS) });
  const producer = createBatchingProducer({ kafka, lingerMs: config.KAFKA_LINGER_MS, maxBatch: config.KAFKA_MAX_BATCH, sendTimeoutMs: config.KAFKA_SEND_TIMEOUT_MS });
  await producer.connect();
  const kafkaHealth = createKafkaHealthCheck({ kafka, topic: TOPICS.eventsInbound });

  const enrichment = createEnrichmentClient({ baseUrl: config.ENRICHMENT_URL, internalToken: config.INTERNAL_TOKEN, timeoutMs: config.LOOKUP_TIMEOUT_MS });
  const playbooks = createPlaybookClient({ baseUrl: config.PLAYBOOK_URL, internalToken: config.INTERNAL_TOKEN, timeoutMs: config.LOOKUP_TIMEOUT_MS });
  const { app } = createGatewayApp({
    config,
    producer,
    redis,
    authenticator: createAuthenticator({ db, cacheTtlMs: config.AUTH_CACHE_TTL_MS }),
    enrichment,
    db,
    playbooks,
    logger,
    checks: {
      postgres: async () => { await db.$queryRaw`SELECT 1`; },
      kafka: kafkaHealth.check,
    },
  });
  const server = createHttpServer({ app, port: config.PORT, host: config.HOST });
  const address = await server.start();
  logger.info({ port: address.port }, 'gateway listening');

  return {
    ...address,
    async stop() {
      await server.stop();
      await producer.disconnect();
      await kafkaHealth.close();
      await enrichment.close();
      await playbooks.close();
      redis.disconnect();
      await db.$disconnect();
      logger.info('gateway stopped');
    },
  };
}
