// Starts the enrichment service: Prisma on Postgres behind an internal HTTP API. It starts and
// stays up while Postgres is down (unready, lookups 503) and is ready again when it returns.
// A consumer of the accounts topic removes a deleted account's data; lookups do not need Kafka,
// so the service starts and stays ready without it (/readyz shows the consumer as degraded).
import type { Kafka } from 'kafkajs';
import type { Registry } from 'prom-client';
import { postgresProbe } from '@glimpse/db';
import { createDb, type Db } from '@glimpse/db/enrichment';
import { createBaseApp, createServiceServer, serviceStart, type RunningService } from '@glimpse/http';
import type { Logger } from '@glimpse/logging';
import { TOPICS, createAccountEventsConsumer, createKafka, createKafkaHealthCheck, kafkaSecurity } from '@glimpse/messaging';
import { internalRouter } from './http/internal-routes.js';
import { importRoutes } from './http/import-routes.js';
import { loadConfig, type EnrichmentConfig } from './config.js';
import { CreditKeeper } from './domain/credits.js';
import { createPersonKey } from './domain/billed-person.js';
import { billedPersonStore } from './data/billed-person-repository.js';
import { companyStore } from './data/company-repository.js';
import { creditStore } from './data/credit-repository.js';
import { personStore } from './data/person-repository.js';
import { rollUpUsage, usageStore } from './data/usage-repository.js';
import { deleteAccountData } from './data/account-data.js';

/** The running enrichment service: where it listens and how to stop it. */
export type RunningEnrichmentService = RunningService;

// A lease lives this long in the database and is spent from for two thirds of it.
const LEASE_TTL_MS = 30_000;
const LEASE_MAX_GRANT = 1000;
const ROLLUP_EVERY_MS = 5_000;

export const startEnrichmentService = serviceStart('enrichment', loadConfig, async (config, logger) => {
  const db = createDb({ databaseUrl: config.DATABASE_URL, poolSize: 10 });
  const credits = new CreditKeeper({
    store: creditStore(db, { ttlMs: LEASE_TTL_MS, maxGrant: LEASE_MAX_GRANT }),
    useForMs: (LEASE_TTL_MS * 2) / 3,
  });
  const base = createBaseApp({
    logger,
    checks: {
      postgres: postgresProbe(db),
      // Optional: without Kafka, deletions wait on the topic while lookups go on (docs/decisions/accounts.md).
      accounts: {
        optional: true,
        check: async () => {
          accounts.check();
          await kafkaHealth.check();
        },
      },
    },
  });
  const kafka = createKafka({ brokers: config.KAFKA_BROKERS, security: kafkaSecurity(config), clientId: 'glimpse-enrichment', logger });
  const kafkaHealth = createKafkaHealthCheck({ kafka, topic: TOPICS.accounts });
  const accounts = createAccountsConsumer({ config, kafka, db, logger, registry: base.registry });
  base.app.use(lookupRouter(config, db, credits));
  base.app.use(importRoutes({ db, databaseUrl: config.DATABASE_URL, defaultPhoneRegion: config.DEFAULT_PHONE_REGION, internalTokens: config.INTERNAL_TOKENS }));
  const server = createServiceServer({ base, port: config.ENRICHMENT_PORT, host: config.HOST, metricsPort: config.METRICS_PORT });
  const address = await server.start();
  accounts.start();
  const rollup = scheduleUsageRollup(db, logger);
  logger.info({ port: address.port, metricsPort: address.metricsPort, accountsGroupId: config.ENRICHMENT_ACCOUNTS_GROUP_ID }, 'enrichment service listening');
  return {
    ...address,
    async stop() {
      rollup.stop();
      await accounts.stop();
      await kafkaHealth.close();
      await server.stop();
      await rollup.inHand();
      await credits.release().catch((err: unknown) => logger.warn({ err }, 'credit leases not released; they expire by themselves'));
      await db.$disconnect();
      logger.info('enrichment service stopped');
    },
  };
});

interface AccountsConsumerParts {
  config: EnrichmentConfig;
  kafka: Kafka;
  db: Db;
  logger: Logger;
  registry: Registry;
}

/** The consumer of the accounts topic: a deletion removes the account's data. */
function createAccountsConsumer({ config, kafka, db, logger, registry }: AccountsConsumerParts) {
  return createAccountEventsConsumer({
    kafka,
    groupId: config.ENRICHMENT_ACCOUNTS_GROUP_ID,
    logger,
    registry,
    onDeleted: async (accountId) => {
      const removed = await deleteAccountData(db, accountId);
      return Object.values(removed).reduce((a, b) => a + b, 0);
    },
  });
}

/** The internal lookup API (persons, visitors, companies, usage, credits) on the stores over `db`. */
function lookupRouter(config: EnrichmentConfig, db: Db, credits: CreditKeeper) {
  return internalRouter({
    db,
    persons: personStore(db),
    companies: companyStore(db),
    usage: usageStore(db),
    credits,
    defaultPhoneRegion: config.DEFAULT_PHONE_REGION,
    billedPersons: billedPersonStore(db),
    personKey: createPersonKey(config.ENRICHMENT_BILLING_KEY),
    internalTokens: config.INTERNAL_TOKENS,
  });
}

/**
 * Usage is counted in the ledger; rolling it up every ROLLUP_EVERY_MS keeps reads short. A failure
 * (Postgres away) waits for the next round. stop() ends the rounds; inHand() is the last one begun.
 */
function scheduleUsageRollup(db: Db, logger: Logger) {
  let rolling: Promise<unknown> = Promise.resolve();
  const rollup = setInterval(() => {
    rolling = rollUpUsage(db).catch((err: unknown) => logger.warn({ err }, 'usage roll-up failed; retried in the next round'));
  }, ROLLUP_EVERY_MS);
  rollup.unref();
  return { stop: () => clearInterval(rollup), inHand: () => rolling };
}
