// Starts the playbook service: the consumer group on events.inbound, the consumer of the accounts
// topic (deletions remove an account's data) and an HTTP port for the internal management API
// (called by the gateway), health, readiness and metrics. On stop it leaves the groups cleanly and
// flushes the effects producer.
import type { Kafka } from 'kafkajs';
import type { Registry } from 'prom-client';
import { postgresProbe } from '@glimpse/db';
import { createDb, type Db } from '@glimpse/db/playbook';
import { createBaseApp, serveService, serviceStart, type RunningService } from '@glimpse/http';
import type { Logger } from '@glimpse/logging';
import {
  batchConsumerServiceReadiness,
  TOPICS,
  connectServiceKafka,
  createAccountEventsConsumer,
  createErasedEmail,
  type BatchingProducer,
} from '@glimpse/messaging';
import { applyAccountEvent } from './data/account-states.js';
import { createInboundEventsConsumer } from './consumer/inbound-events-consumer.js';
import { cachedAccounts, type CachedAccountsCheck } from './data/batch-store.js';
import { internalRouter } from './http/internal-routes.js';
import { schedulePurge } from './data/processed-events-retention.js';
import { scheduleEffectsSweep } from './data/effects-outbox.js';
import type { PlaybookLimits } from './domain/limits.js';
import type { ErasedEmail } from './domain/persons.js';
import { loadConfig, playbookLimits, type PlaybookConfig } from './config.js';

/** The running playbook service: where it listens and how to stop it. */
export type RunningPlaybookService = RunningService;

export const startPlaybookService = serviceStart('playbook', loadConfig, async (config, logger) => {
  // One connection per partition handled concurrently, plus a few for the internal API.
  const db = createDb({ databaseUrl: config.DATABASE_URL, poolSize: config.PLAYBOOK_CONCURRENCY + 4 });
  // A chunk's effects go out as one producer batch.
  const maxBatch = Math.max(500, config.PLAYBOOK_MAX_BATCH * 4);
  const { kafka, producer, kafkaHealth } = await connectServiceKafka({ config, logger, service: 'playbook', healthTopic: TOPICS.eventsInbound, maxBatch });

  const base = createBaseApp({
    logger,
    ...batchConsumerServiceReadiness(() => consumer, kafkaHealth, {
      postgres: postgresProbe(db),
      accounts: async () => accountsConsumer.check(),
    }),
  });
  // One account check for both consumers: a deletion this replica applies is seen by its next batch.
  const accounts = cachedAccounts(db);
  const accountsGroupId = config.PLAYBOOK_ACCOUNTS_GROUP_ID ?? `${config.PLAYBOOK_GROUP_ID}-accounts`;
  const parts = { config, kafka, db, logger, registry: base.registry, accounts };
  const accountsConsumer = createAccountsConsumer({ ...parts, groupId: accountsGroupId });
  // One stand-in for an erased email, the erasure's and the consumer's (PLAYBOOK_ERASURE_KEY).
  const erasedEmail = createErasedEmail(config.PLAYBOOK_ERASURE_KEY);
  // What one account may have: playbooks, triggers and exits, catalog names, suppressions.
  const limits = playbookLimits(config);
  const consumer = createEventsConsumer({ ...parts, producer, erasedEmail, limits });
  accountsConsumer.start(); // in the background, retrying until Kafka answers; /readyz shows it
  await consumer.start();
  const purge = schedulePurge(db, {
    retentionHours: config.PLAYBOOK_PROCESSED_RETENTION_HOURS,
    intervalMs: config.PLAYBOOK_PROCESSED_PURGE_INTERVAL_MS,
    logger,
  });
  const sweep = scheduleEffectsSweep(db, producer, { intervalMs: config.PLAYBOOK_EFFECTS_SWEEP_INTERVAL_MS, logger });

  base.app.use(internalRouter({ db, internalTokens: config.INTERNAL_TOKENS, limits, erasedEmail }));
  return serveService({
    name: 'playbook',
    base,
    port: config.PLAYBOOK_PORT,
    host: config.HOST,
    metricsPort: config.METRICS_PORT,
    logger,
    details: { groupId: config.PLAYBOOK_GROUP_ID, accountsGroupId },
    drain: [() => purge.stop(), () => sweep.stop(), () => consumer.stop(), () => accountsConsumer.stop()],
    close: [() => producer.disconnect(), () => kafkaHealth.close(), () => db.$disconnect()],
  });
});

/** What both consumers are made from. */
interface ConsumerParts {
  config: PlaybookConfig;
  kafka: Kafka;
  db: Db;
  logger: Logger;
  registry: Registry;
  /** The cached account check both consumers share. */
  accounts: CachedAccountsCheck;
}

/** The consumer of the accounts topic: a creation or deletion is applied to the account's data (a deletion removes it). */
function createAccountsConsumer({ config, kafka, db, logger, registry, accounts, groupId }: ConsumerParts & { groupId: string }) {
  return createAccountEventsConsumer({
    kafka,
    groupId,
    logger,
    registry,
    sessionTimeoutMs: config.PLAYBOOK_SESSION_TIMEOUT_MS,
    retryBackoffMs: config.PLAYBOOK_RETRY_BACKOFF_MS,
    retryBackoffMaxMs: config.PLAYBOOK_RETRY_BACKOFF_MAX_MS,
    onCreated: async (_id, event) => {
      await applyAccountEvent(db, event);
    },
    onDeleted: async (id, event) => {
      const { removed } = await applyAccountEvent(db, event);
      accounts.forget(id); // this replica's next batch drops the account's events at once
      return Object.values(removed ?? {}).reduce((sum, n) => sum + n, 0);
    },
  });
}

interface EventsConsumerParts extends ConsumerParts {
  producer: BatchingProducer;
  erasedEmail: ErasedEmail;
  limits: PlaybookLimits;
}

/** The consumer group on events.inbound: batches of events applied to enrollments, their effects published. */
function createEventsConsumer({ config, kafka, db, logger, registry, accounts, producer, erasedEmail, limits }: EventsConsumerParts) {
  return createInboundEventsConsumer({
    erasedEmail,
    kafka,
    accounts,
    groupId: config.PLAYBOOK_GROUP_ID,
    concurrency: config.PLAYBOOK_CONCURRENCY,
    sessionTimeoutMs: config.PLAYBOOK_SESSION_TIMEOUT_MS,
    logger,
    registry,
    db,
    producer,
    maxBatch: config.PLAYBOOK_MAX_BATCH,
    maxAttempts: config.PLAYBOOK_MAX_ATTEMPTS,
    retryBackoffMs: config.PLAYBOOK_RETRY_BACKOFF_MS,
    retryBackoffMaxMs: config.PLAYBOOK_RETRY_BACKOFF_MAX_MS,
    stuckAfterMs: config.PLAYBOOK_STUCK_AFTER_MS,
    lagPollMs: config.PLAYBOOK_LAG_POLL_MS,
    catalogNamesPerAccount: limits.catalogNamesPerAccount,
  });
}
