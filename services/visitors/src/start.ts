// Starts the visitors service: the consumer group on visitors.collected (sessions, aggregates,
// identity links and site hours; track events of identified visitors on to events.inbound), the
// consumer of the accounts topic (a deletion removes the account's visitors), the periodic purge of
// old collected ids and the visitor retention, and an HTTP port for the internal API, health, readiness and metrics (lag
// included). On stop it leaves the groups (the chunk in hand finished and committed), then closes.
import { postgresProbe } from '@glimpse/db';
import { createDb, type Db } from '@glimpse/db/visitors';
import { createBaseApp, serveService, serviceStart, type RunningService } from '@glimpse/http';
import type { Express } from 'express';
import type { Registry } from 'prom-client';
import { metricsIn, type Logger } from '@glimpse/logging';
import { batchConsumerServiceReadiness, TOPICS, connectServiceKafka, createAccountEventsConsumer } from '@glimpse/messaging';
import { createCollectedConsumer, type CollectedConsumerOptions } from './consumer/collected-consumer.js';
import { scheduleCollectedPurge } from './data/collected-retention.js';
import { scheduleVisitorRetention } from './data/visitor-retention.js';
import { scheduleIntentRescorer } from './data/intent-repository.js';
import { scheduleSegmentAlerts } from './data/segment-alerts.js';
import { deleteAccountSegments } from './data/segment-repository.js';
import { createIpData, type IpData } from './data/ip-data.js';
import { classifyNetwork } from './domain/network-classifier.js';
import { deleteAccountVisitors } from './data/visitor-repository.js';
import { internalRouter } from './http/internal-routes.js';
import { ipRangesImportRoutes } from './http/import-routes.js';
import { ipDataRoutes } from './http/ip-data-routes.js';
import { loadConfig, type VisitorsConfig } from './config.js';

/** The running visitors service: where it listens and how to stop it. */
export type RunningVisitorsService = RunningService;

export const startVisitorsService = serviceStart('visitors', loadConfig, async (config, logger) => {
  // One connection per partition applied concurrently, plus a few for the internal API and the purge.
  const db = createDb({ databaseUrl: config.DATABASE_URL, poolSize: config.VISITORS_CONCURRENCY + 4 });
  // A chunk's track events (and dead letters) go out as one producer batch.
  const maxBatch = Math.max(500, config.VISITORS_MAX_BATCH);
  const { kafka, producer, kafkaHealth } = await connectServiceKafka({ config, logger, service: 'visitors', healthTopic: TOPICS.visitorsCollected, maxBatch });

  const base = createBaseApp({
    logger,
    ...batchConsumerServiceReadiness(() => consumer, kafkaHealth, {
      postgres: postgresProbe(db),
      accounts: async () => accounts.check(),
    }),
  });
  const ipData = await startIpData(config, logger, base.registry);
  const consumer = createCollectedConsumer(collectedConsumerOptions(config, { kafka, db, producer, ipData, logger, registry: base.registry }));
  const accounts = accountEventsConsumer(config, { kafka, db, logger, registry: base.registry });
  await consumer.start();
  accounts.start(); // in the background, retrying until Kafka answers; /readyz shows it
  const { purge, retention } = scheduleRetention(db, config, logger, base.registry);

  // Segments: evaluated, their entries published to visitors.segments and their digests sent, on every replica (they share the segments).
  const segmentAlerts = scheduleSegmentAlerts(db, producer, { intervalMs: config.SEGMENTS_EVALUATE_INTERVAL_MS, logger });

  // Intent scores: an account whose weights changed is recomputed from its stored contributions.
  const rescorer = scheduleIntentRescorer(db, { intervalMs: config.VISITORS_INTENT_RESCORE_INTERVAL_MS, logger });

  mountInternalApi(base.app, db, config);
  return serveService({
    name: 'visitors',
    base,
    port: config.VISITORS_PORT,
    host: config.HOST,
    metricsPort: config.METRICS_PORT,
    logger,
    details: { groupId: config.VISITORS_GROUP_ID, accountsGroupId: config.VISITORS_ACCOUNTS_GROUP_ID },
    drain: [
      () => segmentAlerts.stop(),
      () => purge.stop(),
      () => retention.stop(),
      () => rescorer.stop(),
      () => ipData.stop(),
      () => consumer.stop(),
      () => accounts.stop(),
    ],
    close: [() => producer.disconnect(), () => kafkaHealth.close(), () => db.$disconnect()],
  });
});

/** The IP datasets in memory, loaded before the first chunk so its page views are located. */
async function startIpData(config: VisitorsConfig, logger: Logger, registry: Registry): Promise<IpData> {
  const ipData = createIpData({
    databaseUrl: config.DATABASE_URL,
    classify: classifyNetwork,
    pollMs: config.VISITORS_IP_DATA_POLL_MS,
    logger,
    registry,
  });
  await ipData.start();
  return ipData;
}

type AccountEventsOptions = Parameters<typeof createAccountEventsConsumer>[0];

/** The consumer of the accounts topic: a deleted account's visitors and segments are removed. */
function accountEventsConsumer(config: VisitorsConfig, deps: Pick<AccountEventsOptions, 'kafka' | 'logger' | 'registry'> & { db: Db }) {
  const { kafka, db, logger, registry } = deps;
  return createAccountEventsConsumer({
    kafka,
    groupId: config.VISITORS_ACCOUNTS_GROUP_ID,
    sessionTimeoutMs: config.VISITORS_SESSION_TIMEOUT_MS,
    logger,
    registry,
    onDeleted: async (accountId) => (await deleteAccountVisitors(db, accountId)) + (await deleteAccountSegments(db, accountId)),
  });
}

/** The internal API the gateway calls: the account's data, the operator's imports, IP datasets and network types. */
function mountInternalApi(app: Express, db: Db, config: VisitorsConfig): void {
  app.use(
    internalRouter({
      db,
      internalTokens: config.INTERNAL_TOKENS,
      erasureSecret: config.VISITORS_ERASURE_KEY,
      pageRulesPerAccount: config.PAGE_RULES_PER_ACCOUNT,
      companiesCacheMs: config.COMPANIES_VIEW_CACHE_SECONDS * 1000,
      segmentsPerAccount: config.SEGMENTS_PER_ACCOUNT,
    }),
  );
  app.use(ipRangesImportRoutes({ databaseUrl: config.DATABASE_URL, internalTokens: config.INTERNAL_TOKENS }));
  app.use(ipDataRoutes({ databaseUrl: config.DATABASE_URL, internalTokens: config.INTERNAL_TOKENS }));
}

/** The consumer group on visitors.collected, its page views located by the IP datasets in memory. */
function collectedConsumerOptions(
  config: VisitorsConfig,
  deps: Pick<CollectedConsumerOptions, 'kafka' | 'db' | 'producer' | 'logger' | 'registry'> & { ipData: IpData },
): CollectedConsumerOptions {
  const { ipData, ...rest } = deps;
  return {
    ...rest,
    erasureSecret: config.VISITORS_ERASURE_KEY,
    lookup: () => (ip) => ipData.current().lookup(ip),
    companyWindowMs: config.COMPANY_VISIT_WINDOW_HOURS * 3_600_000,
    forwardCap: { perWindow: config.VISITORS_FORWARDS_PER_ACCOUNT_PER_WINDOW, windowMs: config.VISITORS_FORWARDS_WINDOW_MS },
    groupId: config.VISITORS_GROUP_ID,
    concurrency: config.VISITORS_CONCURRENCY,
    sessionTimeoutMs: config.VISITORS_SESSION_TIMEOUT_MS,
    maxBatch: config.VISITORS_MAX_BATCH,
    stuckAfterMs: config.VISITORS_STUCK_AFTER_MS,
    fetchMinBytes: config.VISITORS_FETCH_MIN_BYTES,
    fetchMaxWaitMs: config.VISITORS_FETCH_MAX_WAIT_MS,
  };
}

/** The purge of old collected ids and erasures, and the visitor retention with its deletions counted by table. */
function scheduleRetention(db: Db, config: VisitorsConfig, logger: Logger, registry: Registry) {
  const purge = scheduleCollectedPurge(db, {
    retentionHours: config.VISITORS_COLLECTED_RETENTION_HOURS,
    erasureRetentionHours: config.VISITORS_ERASURE_RETENTION_HOURS,
    intervalMs: config.VISITORS_PURGE_INTERVAL_MS,
    logger,
  });
  const retained = metricsIn(registry).counter(
    'glimpse_visitors_retention_deleted_total',
    'Rows deleted by the visitor retention, by table (profiles, sessions, links, firings, company_visits)',
    ['table'],
  );
  const retention = scheduleVisitorRetention(db, {
    retentionDays: config.VISITOR_RETENTION_DAYS,
    cookielessRetentionDays: config.VISITOR_COOKIELESS_RETENTION_DAYS,
    intervalMs: config.VISITOR_RETENTION_INTERVAL_MS,
    logger,
    onDeleted: (c) => {
      for (const [table, n] of [
        ['profiles', c.profiles],
        ['sessions', c.sessions],
        ['links', c.links],
        ['firings', c.firings],
        ['company_visits', c.companyVisits],
      ] as const) {
        if (n > 0) retained.inc({ table }, n);
      }
    },
  });
  return { purge, retention };
}
