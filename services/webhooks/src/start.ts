// Starts the webhooks service: the consumer groups on playbook.effects, visitors.identified,
// visitors.companies and visitors.segments (schedule deliveries; an identification's person details
// and a company's firmographics come from enrichment; segment alerts go to webhook and Slack
// endpoints alike), the consumer of
// the accounts topic (a deletion removes the account's endpoints), the dispatcher
// (sends deliveries, retries from the schedule in Postgres) and an HTTP port for the internal
// management API, health, readiness and metrics. On stop it leaves the groups, lets the attempts
// in hand finish and be recorded, then closes.
import type { Kafka } from 'kafkajs';
import type { Registry } from 'prom-client';
import { postgresProbe } from '@glimpse/db';
import { createDb, type Db } from '@glimpse/db/webhooks';
import { createBaseApp, serveService, serviceStart, type RunningService, type StopStep } from '@glimpse/http';
import type { Logger } from '@glimpse/logging';
import { TOPICS, connectServiceKafka, createAccountEventsConsumer, type BatchingProducer, type KafkaHealthCheck } from '@glimpse/messaging';
import { createCompaniesConsumer } from './consumer/companies-consumer.js';
import { createEffectsConsumer } from './consumer/effects-consumer.js';
import { createIdentifiedConsumer } from './consumer/identified-consumer.js';
import { createSegmentsConsumer } from './consumer/segments-consumer.js';
import { createEnrichmentClient } from './data/enrichment-client.js';
import { createDispatcher } from './delivery/dispatcher.js';
import { createSender } from './delivery/sender.js';
import { createSlackSender } from './delivery/slack-sender.js';
import { createResolver, type HostResolver } from './delivery/resolver.js';
import { nextAttemptAt, shouldDisable } from './domain/retry-schedule.js';
import type { ManageDeps } from './domain/manage-endpoints.js';
import type { TargetPolicy } from './domain/target-policy.js';
import { deleteAccountEndpoints, endpointStore, sealStoredSecrets } from './data/endpoint-repository.js';
import { createSecretBox, type SecretBox } from './domain/secret-box.js';
import { internalRouter } from './http/internal-routes.js';
import { loadConfig, type WebhooksConfig } from './config.js';

/** The running webhooks service: where it listens and how to stop it. */
export type RunningWebhooksService = RunningService;

export const startWebhooksService = serviceStart('webhooks', loadConfig, async (config, logger) => {
  const db = createDb({ databaseUrl: config.DATABASE_URL, poolSize: config.WEBHOOKS_CONCURRENCY + 6 });
  const { kafka, producer, kafkaHealth } = await connectServiceKafka({ config, logger, service: 'webhooks', healthTopic: TOPICS.playbookEffects });
  const policy = targetPolicyOf(config);
  // Targets' names, at subscription and at each connection: off libuv's thread pool, bounded in time.
  const resolver = createResolver({ timeoutMs: config.WEBHOOKS_DNS_TIMEOUT_MS, servers: config.WEBHOOKS_DNS_SERVERS });
  warnOfLooseSettings(config, policy, logger);

  // The checks ask the consumer groups, made below: they need the base's metrics registry.
  const base = createBaseApp({ logger, checks: readinessChecks(db, kafkaHealth, () => groups) });
  const secrets = createSecretBox(config.WEBHOOKS_SECRET_KEY, config.WEBHOOKS_SECRET_KEY_PREVIOUS);
  const { sender, slack, dispatcher } = createDelivery({ config, db, logger, registry: base.registry, policy, resolver, secrets });
  const groups = createConsumerGroups({ config, kafka, producer, db, logger, registry: base.registry, onScheduled: () => dispatcher.poke() });
  await startConsumerGroups(groups);
  dispatcher.start();
  const stopSealing = sealSecretsInBackground(db, secrets, logger);

  base.app.use(internalRouter({ deps: manageDeps(config, db, policy, resolver, secrets), db, internalTokens: config.INTERNAL_TOKENS }));
  const { effects, identified, companies, segments, accounts, enrichment } = groups;
  return serveService({
    name: 'webhooks',
    base,
    port: config.WEBHOOKS_PORT,
    host: config.HOST,
    metricsPort: config.METRICS_PORT,
    logger,
    details: groupIdsOf(config),
    drain: [
      stopSealing,
      () => effects.stop(),
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

/** Which webhook targets may be called (the SSRF guard, loopback, https), from the configuration. */
function targetPolicyOf(config: WebhooksConfig): TargetPolicy {
  return {
    blockPrivate: config.WEBHOOKS_BLOCK_PRIVATE_TARGETS,
    allowLoopback: config.WEBHOOKS_ALLOW_LOOPBACK,
    requireHttps: config.WEBHOOKS_REQUIRE_HTTPS,
  };
}

/** Warns of settings that are allowed but likely a mistake where they are. */
function warnOfLooseSettings(config: WebhooksConfig, policy: TargetPolicy, logger: Logger): void {
  if (!policy.blockPrivate) logger.warn('webhook targets are not checked for private addresses (WEBHOOKS_BLOCK_PRIVATE_TARGETS is off outside production)');
  if (config.NODE_ENV === 'production' && new URL(config.WEBHOOKS_CONSOLE_URL).hostname === '127.0.0.1')
    logger.warn('Slack messages link the console at 127.0.0.1: set WEBHOOKS_CONSOLE_URL to where people reach it');
}

/** Readiness: Postgres, the four scheduling groups running with Kafka answering, and the accounts consumer. */
function readinessChecks(db: Db, kafkaHealth: KafkaHealthCheck, groups: () => ConsumerGroups) {
  return {
    postgres: postgresProbe(db),
    kafka: async () => {
      const { effects, identified, companies, segments } = groups();
      if (!effects.isRunning()) throw new Error('consumer not running');
      if (!identified.isRunning()) throw new Error('visitors.identified consumer not running');
      if (!companies.isRunning()) throw new Error('visitors.companies consumer not running');
      if (!segments.isRunning()) throw new Error('visitors.segments consumer not running');
      await kafkaHealth.check();
    },
    accounts: async () => groups().accounts.check(),
  };
}

interface DeliveryParts {
  config: WebhooksConfig;
  db: Db;
  logger: Logger;
  registry: Registry;
  policy: TargetPolicy;
  resolver: HostResolver;
  secrets: SecretBox;
}

/** The senders (webhook and Slack) and the dispatcher that claims due deliveries, sends them and schedules retries. */
function createDelivery({ config, db, logger, registry, policy, resolver, secrets }: DeliveryParts) {
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
    registry,
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
  return { sender, slack, dispatcher };
}

interface ConsumerParts {
  config: WebhooksConfig;
  kafka: Kafka;
  producer: BatchingProducer;
  db: Db;
  logger: Logger;
  registry: Registry;
  /** Called after deliveries were scheduled: the dispatcher looks at once. */
  onScheduled(): void;
}

type ConsumerGroups = ReturnType<typeof createConsumerGroups>;

/** The four groups that schedule deliveries (with the enrichment client two of them ask), and the accounts topic's consumer. */
function createConsumerGroups({ config, kafka, producer, db, logger, registry, onScheduled }: ConsumerParts) {
  const sessionTimeoutMs = config.WEBHOOKS_SESSION_TIMEOUT_MS;
  const scheduling = { kafka, sessionTimeoutMs, logger, registry, db, producer, retryWindowMs: config.WEBHOOKS_RETRY_WINDOW_MS, onScheduled };
  const effects = createEffectsConsumer({ ...scheduling, groupId: config.WEBHOOKS_GROUP_ID });
  const enrichment = createEnrichmentClient({ baseUrl: config.ENRICHMENT_URL, internalToken: config.INTERNAL_TOKEN, timeoutMs: config.ENRICHMENT_TIMEOUT_MS });
  const identified = createIdentifiedConsumer({ ...scheduling, groupId: config.WEBHOOKS_IDENTIFIED_GROUP_ID, persons: enrichment });
  const companies = createCompaniesConsumer({ ...scheduling, groupId: config.WEBHOOKS_COMPANIES_GROUP_ID, companies: enrichment });
  const segments = createSegmentsConsumer({ ...scheduling, groupId: config.WEBHOOKS_SEGMENTS_GROUP_ID });
  const accounts = createAccountEventsConsumer({
    kafka,
    groupId: config.WEBHOOKS_ACCOUNTS_GROUP_ID,
    sessionTimeoutMs,
    logger,
    registry,
    onDeleted: (accountId) => deleteAccountEndpoints(db, accountId),
  });
  return { effects, identified, companies, segments, accounts, enrichment };
}

/** Joins the four scheduling groups (waiting for them), then starts the accounts consumer in the background. */
async function startConsumerGroups({ effects, identified, companies, segments, accounts }: ConsumerGroups): Promise<void> {
  await Promise.all([effects.start(), identified.start(), companies.start(), segments.start()]);
  accounts.start();
}

/**
 * Secrets stored in clear (before encryption) or under a previous key are sealed under the current
 * one, in the background (the dispatcher opens either kind meanwhile). Returns the stop step: it
 * asks the sealing to stop and waits for it.
 */
function sealSecretsInBackground(db: Db, secrets: SecretBox, logger: Logger): StopStep {
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
  return () => {
    stopping = true;
    return sealing;
  };
}

/** What the internal management API's use cases are given. */
function manageDeps(config: WebhooksConfig, db: Db, policy: TargetPolicy, resolver: HostResolver, secrets: SecretBox): ManageDeps {
  return {
    endpoints: endpointStore(db),
    policy,
    // Bounded (WEBHOOKS_DNS_TIMEOUT_MS, 2 s) well inside the gateway's wait, so a slow resolver is a 400, never a 503 after which the endpoint appears anyway.
    resolve: (hostname) => resolver.resolve(hostname),
    secrets,
    maxEndpoints: config.WEBHOOKS_MAX_ENDPOINTS_PER_ACCOUNT,
    retryWindowMs: config.WEBHOOKS_RETRY_WINDOW_MS,
    rotationGraceMs: config.WEBHOOKS_ROTATION_GRACE_MS,
  };
}

/** The group ids, logged when the service is running. */
function groupIdsOf(config: WebhooksConfig) {
  return {
    groupId: config.WEBHOOKS_GROUP_ID,
    identifiedGroupId: config.WEBHOOKS_IDENTIFIED_GROUP_ID,
    companiesGroupId: config.WEBHOOKS_COMPANIES_GROUP_ID,
    segmentsGroupId: config.WEBHOOKS_SEGMENTS_GROUP_ID,
    accountsGroupId: config.WEBHOOKS_ACCOUNTS_GROUP_ID,
  };
}
