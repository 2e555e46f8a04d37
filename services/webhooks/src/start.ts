// Starts the webhooks service: the consumer groups on playbook.effects, visitors.identified,
// visitors.companies and visitors.segments (schedule deliveries; an identification's person details
// and a company's firmographics come from enrichment; segment alerts go to webhook and Slack
// endpoints alike), the consumer of
// the accounts topic (a deletion removes the account's endpoints), the dispatcher
// (sends deliveries, retries from the schedule in Postgres) and an HTTP port for the internal
// management API, health, readiness and metrics. On stop it leaves the groups, lets the attempts
// in hand finish and be recorded, then closes.
import { postgresProbe } from '@glimpse/db';
import { createDb } from '@glimpse/db/webhooks';
import { createBaseApp, serveService, serviceStart, type RunningService } from '@glimpse/http';
import { TOPICS, connectServiceKafka, createAccountEventsConsumer } from '@glimpse/messaging';
import { createCompaniesConsumer } from './consumer/companies-consumer.js';
import { createEffectsConsumer } from './consumer/effects-consumer.js';
import { createIdentifiedConsumer } from './consumer/identified-consumer.js';
import { createSegmentsConsumer } from './consumer/segments-consumer.js';
import { createEnrichmentClient } from './data/enrichment-client.js';
import { createDispatcher } from './delivery/dispatcher.js';
import { createSender } from './delivery/sender.js';
import { createSlackSender } from './delivery/slack-sender.js';
import { createResolver } from './delivery/resolver.js';
import { nextAttemptAt, shouldDisable } from './domain/retry-schedule.js';
import type { ManageDeps } from './domain/manage-endpoints.js';
import { deleteAccountEndpoints, endpointStore, sealStoredSecrets } from './data/endpoint-repository.js';
import { createSecretBox } from './domain/secret-box.js';
import { internalRouter } from './http/internal-routes.js';
import { loadConfig } from './config.js';

/** The running webhooks service: where it listens and how to stop it. */
export type RunningWebhooksService = RunningService;

export const startWebhooksService = serviceStart('webhooks', loadConfig, async (config, logger) => {
  const db = createDb({ databaseUrl: config.DATABASE_URL, poolSize: config.WEBHOOKS_CONCURRENCY + 6 });
  const { kafka, producer, kafkaHealth } = await connectServiceKafka({ config, logger, service: 'webhooks', healthTopic: TOPICS.playbookEffects });
  const policy = {
    blockPrivate: config.WEBHOOKS_BLOCK_PRIVATE_TARGETS,
    allowLoopback: config.WEBHOOKS_ALLOW_LOOPBACK,
    requireHttps: config.WEBHOOKS_REQUIRE_HTTPS,
  };
  // Targets' names, at subscription and at each connection: off libuv's thread pool, bounded in time.
  const resolver = createResolver({ timeoutMs: config.WEBHOOKS_DNS_TIMEOUT_MS, servers: config.WEBHOOKS_DNS_SERVERS });
  if (!policy.blockPrivate) logger.warn('webhook targets are not checked for private addresses (WEBHOOKS_BLOCK_PRIVATE_TARGETS is off outside production)');
  if (config.NODE_ENV === 'production' && new URL(config.WEBHOOKS_CONSOLE_URL).hostname === '127.0.0.1')
    logger.warn('Slack messages link the console at 127.0.0.1: set WEBHOOKS_CONSOLE_URL to where people reach it');

  const base = createBaseApp({
    logger,
    checks: {
      postgres: postgresProbe(db),
      kafka: async () => {
        if (!consumer.isRunning()) throw new Error('consumer not running');
        if (!identified.isRunning()) throw new Error('visitors.identified consumer not running');
        if (!companies.isRunning()) throw new Error('visitors.companies consumer not running');
        if (!segments.isRunning()) throw new Error('visitors.segments consumer not running');
        await kafkaHealth.check();
      },
      accounts: async () => accounts.check(),
    },
  });
  const secrets = createSecretBox(config.WEBHOOKS_SECRET_KEY, config.WEBHOOKS_SECRET_KEY_PREVIOUS);
  const sender = createSender({ timeoutMs: config.WEBHOOKS_TIMEOUT_MS, policy, resolver, connectionsPerOrigin: config.WEBHOOKS_CONCURRENCY });
  const slack = createSlackSender({ timeoutMs: config.WEBHOOKS_TIMEOUT_MS, policy, resolver });
  const retry = { baseMs: config.WEBHOOKS_RETRY_BASE_MS, maxDelayMs: config.WEBHOOKS_RETRY_MAX_DELAY_MS };
  const dispatcher = createDispatcher({
    db,
    sender,
    slack,
    consoleUrl: config.WEBHOOKS_CONSOLE_URL,
    secrets,
    logger,
    registry: base.registry,
    concurrency: config.WEBHOOKS_CONCURRENCY,
    accountConcurrency: config.WEBHOOKS_ACCOUNT_CONCURRENCY,
    endpointConcurrency: config.WEBHOOKS_ENDPOINT_CONCURRENCY,
    pollIntervalMs: config.WEBHOOKS_POLL_INTERVAL_MS,
    leaseMs: 2 * config.WEBHOOKS_TIMEOUT_MS + 5000,
    policy: {
      nextAttempt: (failed, expiresAt) => nextAttemptAt(failed, new Date(), expiresAt, retry),
      disable: (failingSince) => shouldDisable(failingSince, new Date(), config.WEBHOOKS_DISABLE_AFTER_MS),
    },
    retentionMs: config.WEBHOOKS_RETENTION_MS,
  });
  const consumer = createEffectsConsumer({
    kafka,
    groupId: config.WEBHOOKS_GROUP_ID,
    sessionTimeoutMs: config.WEBHOOKS_SESSION_TIMEOUT_MS,
    logger,
    registry: base.registry,
    db,
    producer,
    retryWindowMs: config.WEBHOOKS_RETRY_WINDOW_MS,
    onScheduled: () => dispatcher.poke(),
  });
  const enrichment = createEnrichmentClient({ baseUrl: config.ENRICHMENT_URL, internalToken: config.INTERNAL_TOKEN, timeoutMs: config.ENRICHMENT_TIMEOUT_MS });
  const identified = createIdentifiedConsumer({
    kafka,
    groupId: config.WEBHOOKS_IDENTIFIED_GROUP_ID,
    sessionTimeoutMs: config.WEBHOOKS_SESSION_TIMEOUT_MS,
    logger,
    registry: base.registry,
    db,
    producer,
    persons: enrichment,
    retryWindowMs: config.WEBHOOKS_RETRY_WINDOW_MS,
    onScheduled: () => dispatcher.poke(),
  });
  const companies = createCompaniesConsumer({
    kafka,
    groupId: config.WEBHOOKS_COMPANIES_GROUP_ID,
    sessionTimeoutMs: config.WEBHOOKS_SESSION_TIMEOUT_MS,
    logger,
    registry: base.registry,
    db,
    producer,
    companies: enrichment,
    retryWindowMs: config.WEBHOOKS_RETRY_WINDOW_MS,
    onScheduled: () => dispatcher.poke(),
  });
  const segments = createSegmentsConsumer({
    kafka,
    groupId: config.WEBHOOKS_SEGMENTS_GROUP_ID,
    sessionTimeoutMs: config.WEBHOOKS_SESSION_TIMEOUT_MS,
    logger,
    registry: base.registry,
    db,
    producer,
    retryWindowMs: config.WEBHOOKS_RETRY_WINDOW_MS,
    onScheduled: () => dispatcher.poke(),
  });
  const accounts = createAccountEventsConsumer({
    kafka,
    groupId: config.WEBHOOKS_ACCOUNTS_GROUP_ID,
    sessionTimeoutMs: config.WEBHOOKS_SESSION_TIMEOUT_MS,
    logger,
    registry: base.registry,
    onDeleted: (accountId) => deleteAccountEndpoints(db, accountId),
  });
  await Promise.all([consumer.start(), identified.start(), companies.start(), segments.start()]);
  accounts.start();
  dispatcher.start();
  // Secrets stored in clear (before encryption) or under a previous key are sealed under the
  // current one, in the background (the dispatcher opens either kind meanwhile).
  let stopping = false;
  const sealing = sealStoredSecrets(db, secrets, { stopped: () => stopping }).then(
    ({ sealed, unopenable }) => {
      if (sealed > 0) logger.info({ sealed }, 'webhook signing secrets sealed under the current WEBHOOKS_SECRET_KEY');
      if (unopenable > 0)
        logger.error(
          { unopenable },
          'webhook signing secrets sealed under an unknown key: set the key that sealed them in WEBHOOKS_SECRET_KEY_PREVIOUS; their deliveries wait',
        );
    },
    (err: Error) => logger.warn({ err: err.message }, 'sealing stored webhook secrets failed; tried again at the next start'),
  );

  const deps: ManageDeps = {
    endpoints: endpointStore(db),
    policy,
    // Bounded (WEBHOOKS_DNS_TIMEOUT_MS, 2 s) well inside the gateway's wait, so a slow resolver is a 400, never a 503 after which the endpoint appears anyway.
    resolve: (hostname) => resolver.resolve(hostname),
    secrets,
    maxEndpoints: config.WEBHOOKS_MAX_ENDPOINTS_PER_ACCOUNT,
    retryWindowMs: config.WEBHOOKS_RETRY_WINDOW_MS,
    rotationGraceMs: config.WEBHOOKS_ROTATION_GRACE_MS,
  };
  base.app.use(internalRouter({ deps, db, internalTokens: config.INTERNAL_TOKENS }));
  return serveService({
    name: 'webhooks',
    base,
    port: config.WEBHOOKS_PORT,
    host: config.HOST,
    metricsPort: config.METRICS_PORT,
    logger,
    details: {
      groupId: config.WEBHOOKS_GROUP_ID,
      identifiedGroupId: config.WEBHOOKS_IDENTIFIED_GROUP_ID,
      companiesGroupId: config.WEBHOOKS_COMPANIES_GROUP_ID,
      segmentsGroupId: config.WEBHOOKS_SEGMENTS_GROUP_ID,
      accountsGroupId: config.WEBHOOKS_ACCOUNTS_GROUP_ID,
    },
    drain: [
      () => {
        stopping = true;
        return sealing;
      },
      () => consumer.stop(),
      () => identified.stop(),
      () => companies.stop(),
      () => segments.stop(),
      () => accounts.stop(),
      () => dispatcher.stop(),
    ],
    close: [
      () => sender.close(),
      () => slack.close(),
      () => enrichment.close(),
      () => producer.disconnect(),
      () => kafkaHealth.close(),
      () => db.$disconnect(),
    ],
  });
});
