// Starts the gateway: Kafka producer, Redis, Postgres (credentials), HTTP, the publisher of account
// events (the identity outbox); drains on SIGTERM.
// It starts whatever is down: the HTTP server listens at once, /readyz says what is missing, and
// Kafka, Redis and Postgres are connected when they come.
import { Registry } from 'prom-client';
import { createDb, type Db } from '@glimpse/db/identity';
import { createHttpServer } from '@glimpse/http';
import { createLogger, type Logger } from '@glimpse/logging';
import { createGatewayApp } from './app.js';
import { loadConfig, type GatewayConfig } from './config.js';
import { startAccountEventsPublisher } from './data/account-events-publisher.js';
import { createGatewayAuthenticator } from './start-auth.js';
import { createServiceClients } from './start-clients.js';
import { startKafkaProducer } from './start-kafka.js';
import { gatewayReadinessChecks } from './start-readiness.js';
import { stopGatewayParts } from './start-shutdown.js';
import { startRedis } from './start-stores.js';

export interface RunningGateway {
  url: string;
  port: number;
  stop(): Promise<void>;
}

/** Postgres (credentials, sites, the identity outbox). Here, not in a module of its own: deploy/test reads the pool size from this file for the connection budget. */
function createGatewayDb(config: GatewayConfig): Db {
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

export async function startGateway(
  config: GatewayConfig = loadConfig(),
  logger: Logger = createLogger({ service: 'gateway', level: config.LOG_LEVEL }),
): Promise<RunningGateway> {
  const registry = new Registry();
  const db = createGatewayDb(config);
  const stores = startRedis(config, logger);
  const { redis, memoryGuard } = stores;
  const { producer, kafkaHealth } = await startKafkaProducer(config, logger, registry);
  const services = createServiceClients(config);
  // The app takes the parts as they are made: Redis and its memory guard, the authenticator and its address limiter.
  const { app } = createGatewayApp({
    config,
    producer,
    ...stores,
    ...createGatewayAuthenticator(config, db, registry),
    services,
    db,
    logger,
    registry,
    checks: gatewayReadinessChecks({ producer, kafkaHealth, db, redis }),
  });
  // The outbox of account events goes to the accounts topic through the same producer.
  const accountEvents = startAccountEventsPublisher({ db, producer, intervalMs: config.ACCOUNT_EVENTS_PUBLISH_INTERVAL_MS, logger, registry });
  const server = createHttpServer({ app, port: config.PORT, host: config.HOST });
  const address = await server.start();
  logger.info({ port: address.port }, 'gateway listening');

  return {
    ...address,
    async stop() {
      await stopGatewayParts({ server, accountEvents, producer, kafkaHealth, clients: services, memoryGuard, redis, db });
      logger.info('gateway stopped');
    },
  };
}
