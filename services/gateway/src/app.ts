// Wires the gateway's HTTP app from what it is given; start.ts builds the real dependencies.
import { Registry } from 'prom-client';
import type { Authenticator } from '@glimpse/auth';
import type { Db } from '@glimpse/db/identity';
import { metricsIn, type Logger } from '@glimpse/logging';
import { createBaseApp, type OptionalCheck, type ReadinessCheck } from '@glimpse/http';
import type { BatchingProducer } from '@glimpse/messaging';
import { createAddressLimiter, type AddressLimiter } from './data/address-limiter.js';
import { createIdempotencyStore } from './data/idempotency-store.js';
import { createRateLimiter, type RateLimiter } from './data/rate-limiter.js';
import { createRawEventStore, rawEventKeys, type RawEventStore } from './data/raw-event-store.js';
import type { MemoryGuard } from './data/memory-guard.js';
import type { RedisClient } from './data/redis-client.js';
import { eventsRouter } from './http/events-route.js';
import { lookupsRouter } from './http/lookups-route.js';
import { accountRouter } from './http/account/account-router.js';
import { consoleRouter } from './http/console-route.js';
import { docsRouter } from './http/docs-route.js';
import { operatorRouter } from './http/operator-routes.js';
import type { ServiceClients } from './start-clients.js';
import { tagAsset } from './tag/tag-asset.js';
import { siteScriptRouter, tagRouter } from './tag/tag-route.js';
import type { TagAsset } from './http/account/site-routes.js';
import { collectRouter } from './http/collect-route.js';
import { createLinkTokenRevocations, type LinkTokenRevocations } from './data/link-token-revocations.js';
import { createLinkTokens, type LinkTokens } from './domain/link-token.js';
import { createDailySalt } from './data/daily-salt.js';
import { createCollectCaps } from './data/collect-caps.js';
import { createSiteCache } from './data/site-cache.js';
import { findSiteByKey } from './data/site-repository.js';
import { createReasonLabels } from './domain/bot-filter.js';
import { accountRateLimits, trustProxySetting, type GatewayConfig } from './config.js';

export interface CreateGatewayOptions {
  config: Pick<
    GatewayConfig,
    | 'EVENTS_RATE_LIMIT_PER_SECOND'
    | 'EVENTS_BODY_LIMIT_BYTES'
    | 'EVENTS_BATCH_BODY_LIMIT_BYTES'
    | 'LOOKUPS_RATE_LIMIT_PER_SECOND'
    | 'ACCOUNT_RATE_LIMIT_PER_SECOND'
    | 'LOOKUPS_RATE_LIMIT_PER_ACCOUNT_PER_SECOND'
    | 'ACCOUNT_RATE_LIMIT_PER_ACCOUNT_PER_SECOND'
    | 'EVENT_TOKENS_PER_ACCOUNT'
    | 'API_KEYS_PER_ACCOUNT'
    | 'SITES_PER_ACCOUNT'
    | 'RAW_EVENTS_PER_ACCOUNT'
    | 'RAW_EVENT_BYTES_PER_ACCOUNT'
    | 'IDEMPOTENCY_KEYS_PER_ACCOUNT'
    | 'IDEMPOTENCY_KEY_BYTES_PER_ACCOUNT'
    | 'REDIS_FAIL_CLOSED_AFTER_MS'
    | 'REDIS_KEYS_MEMORY_FRACTION'
    | 'KAFKA_SEND_TIMEOUT_MS'
    | 'LOOKUP_TIMEOUT_MS'
    | 'TRUST_PROXY'
    | 'PUBLIC_URL'
    | 'COLLECT_RATE_LIMIT_PER_SECOND'
    | 'SITE_CACHE_TTL_MS'
    | 'SITE_CACHE_NEGATIVE_TTL_MS'
    | 'SITE_CACHE_STALE_IF_ERROR_MS'
    | 'SITE_CACHE_MAX_ENTRIES'
    | 'SITE_CACHE_UNKNOWN_MAX_ENTRIES'
    | 'SITE_KEY_LOOKUPS_PER_IP_PER_SECOND'
    | 'SITE_KEY_LOOKUPS_PER_IP_BURST'
    | 'COLLECT_RATE_LIMIT_PER_IP_PER_SECOND'
    | 'NEW_VISITORS_PER_SITE_PER_DAY'
    | 'COLLECT_IDENTIFIES_PER_ACCOUNT_PER_MINUTE'
    | 'LINK_TOKEN_SECRET'
    | 'LINK_TOKEN_REVOCATION_CACHE_MS'
    | 'OPERATOR_TOKEN'
  >;
  producer: BatchingProducer;
  redis: RedisClient;
  /** Refuses raw copies to a Redis master short of memory; none: never refused. */
  memoryGuard?: MemoryGuard;
  authenticator: Authenticator;
  /** The per-address budget of credential look-ups the authenticator was given. */
  addressLimiter: AddressLimiter;
  /** The other services' internal APIs: enrichment, playbook, webhooks and visitors. */
  services: ServiceClients;
  /** Credentials of the management API (event tokens, API keys). */
  db: Db;
  /** The served site tag (its SRI hash goes in the install snippet); by default the built tag. */
  tag?: () => TagAsset;
  logger: Logger;
  checks: Record<string, ReadinessCheck | OptionalCheck>;
  registry?: Registry;
}

export function createGatewayApp(options: CreateGatewayOptions) {
  const p = gatewayParts(options);
  const base = createBaseApp({ logger: p.logger, checks: p.checks, registry: p.registry, trustProxy: trustProxySetting(p.config.TRUST_PROXY) });
  base.app.use(eventsRoute(p));
  base.app.use(lookupsRoute(p));
  base.app.use(accountRoute(p));
  // The operator API exists only with an operator token: unset, /operator is a 404 like any unknown path.
  if (p.config.OPERATOR_TOKEN) base.app.use(operatorRoute(p, p.config.OPERATOR_TOKEN));
  base.app.use(tagRouter());
  base.app.use(collectRoute(p));
  base.app.use(consoleRouter());
  base.app.use(docsRouter());
  return { app: base.finish(), registry: p.registry };
}

/** What the routers share: the options, the metrics, Redis's limiters and raw store, the link tokens. */
interface GatewayParts extends CreateGatewayOptions {
  registry: Registry;
  tag: () => TagAsset;
  metrics: ReturnType<typeof metricsIn>;
  onRedisFailure: (operation: string, err: unknown) => void;
  limiter: (name: string, subjectKind: string, perSecond: number, failClosed?: boolean) => RateLimiter;
  rawStore: RawEventStore;
  idempotencyBudget: { maxCount: number; maxBytes: number };
  linkTokens: LinkTokens;
  linkTokenRevocations: LinkTokenRevocations;
}

function gatewayParts(options: CreateGatewayOptions): GatewayParts {
  const { config, redis, memoryGuard, db, logger } = options;
  const registry = options.registry ?? new Registry();
  const metrics = metricsIn(registry);
  const { onRedisFailure, limiter } = redisLimiters(options, metrics);
  const missed = metrics.counter('glimpse_raw_events_missed_total', 'Accepted events whose raw copy was not written to Redis', ['reason']);
  const droppedRaw = metrics.counter('glimpse_raw_events_dropped_total', 'Raw copies deleted, oldest first, to keep an account within its raw budget');
  const rawStore = createRawEventStore({
    redis,
    maxPerAccount: config.RAW_EVENTS_PER_ACCOUNT,
    maxBytesPerAccount: config.RAW_EVENT_BYTES_PER_ACCOUNT,
    memoryGuard,
    onFailure: onRedisFailure,
    onMissed: (reason) => missed.inc({ reason }),
    onDropped: (n) => droppedRaw.inc(n),
  });
  const idempotencyBudget = { maxCount: config.IDEMPOTENCY_KEYS_PER_ACCOUNT, maxBytes: config.IDEMPOTENCY_KEY_BYTES_PER_ACCOUNT };
  const linkTokens = createLinkTokens(config.LINK_TOKEN_SECRET);
  const linkTokenRevocations = createLinkTokenRevocations({
    db,
    linkTokens,
    ttlMs: config.LINK_TOKEN_REVOCATION_CACHE_MS,
    onFailure: (err) => logger.warn({ err: (err as Error).message }, 'link token revocations unreadable; the link identifies nobody'),
  });
  const tag = options.tag ?? tagAsset;
  return { ...options, registry, tag, metrics, onRedisFailure, limiter, rawStore, idempotencyBudget, linkTokens, linkTokenRevocations };
}

/** Redis's failures, counted and logged, and the rate limiters over it. */
function redisLimiters({ config, redis, logger }: CreateGatewayOptions, metrics: ReturnType<typeof metricsIn>) {
  const redisFailures = metrics.counter('glimpse_redis_failures_total', 'Redis operations that failed (events are still accepted)', ['operation']);
  const onRedisFailure = (operation: string, err: unknown) => {
    redisFailures.inc({ operation });
    logger.warn({ operation, err: (err as Error).message }, 'redis unavailable; continuing without it');
  };
  const localLimits = metrics.counter('glimpse_rate_limit_local_total', "Requests limited on this gateway's own counts because Redis failed", ['limiter']);
  // Lookups and the management API close (503) once Redis has failed for a while; events and /collect never do.
  const limiter = (name: string, subjectKind: string, perSecond: number, failClosed = false) =>
    createRateLimiter({
      redis,
      name,
      subjectKind,
      perSecond,
      failClosedAfterMs: failClosed ? config.REDIS_FAIL_CLOSED_AFTER_MS : undefined,
      onFailure: (err) => onRedisFailure(`rate_limit_${name}`, err),
      onLocal: () => localLimits.inc({ limiter: name }),
    });
  return { onRedisFailure, limiter };
}

/** An idempotency store in the gateway's Redis, with its memory guard and per-account budget; `keyOf` keeps a kind's keys apart (events' by default). */
function idempotencyStoreOf(p: GatewayParts, pendingTtlMs: number, keyOf?: (accountId: string, key: string) => string) {
  return createIdempotencyStore({
    redis: p.redis,
    pendingTtlMs,
    onFailure: p.onRedisFailure,
    keyOf,
    memoryGuard: p.memoryGuard,
    keysShare: p.config.REDIS_KEYS_MEMORY_FRACTION,
    budget: p.idempotencyBudget,
  });
}

/** POST /v1/events, its idempotency keys pending a little longer than a send can take (a gateway that dies mid-send frees them soon). */
function eventsRoute(p: GatewayParts) {
  const { config } = p;
  const accepted = p.metrics.counter('glimpse_events_accepted_total', 'Events acknowledged by Kafka and answered 200');
  const idempotency = idempotencyStoreOf(p, config.KAFKA_SEND_TIMEOUT_MS + 5000);
  return eventsRouter({
    producer: p.producer,
    rawStore: p.rawStore,
    idempotency,
    inFlightWaitMs: config.KAFKA_SEND_TIMEOUT_MS,
    authenticator: p.authenticator,
    rateLimiter: p.limiter('events', 'a', config.EVENTS_RATE_LIMIT_PER_SECOND),
    bodyLimitBytes: config.EVENTS_BODY_LIMIT_BYTES,
    batchBodyLimitBytes: config.EVENTS_BATCH_BODY_LIMIT_BYTES,
    onAccepted: (n) => accepted.inc(n),
  });
}

/** The lookups, limited per API key, per account (every key of it together: more keys do not multiply its rate) and per address. */
function lookupsRoute(p: GatewayParts) {
  const { config } = p;
  const lookupIdempotency = idempotencyStoreOf(p, config.LOOKUP_TIMEOUT_MS + 5000, rawEventKeys.lookupIdempotency);
  return lookupsRouter({
    authenticator: p.authenticator,
    enrichment: p.services.enrichment,
    visitors: p.services.visitors,
    bodyLimitBytes: config.EVENTS_BODY_LIMIT_BYTES,
    limits: {
      perKey: p.limiter('lookups', 'k', config.LOOKUPS_RATE_LIMIT_PER_SECOND, true),
      perAccount: p.limiter('lookups_account', 'a', accountRateLimits(config).lookups, true),
      perAddress: p.addressLimiter,
    },
    idempotency: lookupIdempotency,
    inFlightWaitMs: config.LOOKUP_TIMEOUT_MS,
  });
}

const sitesOptions = ({ config, tag }: GatewayParts) => ({ tag, maxPerAccount: config.SITES_PER_ACCOUNT, publicUrl: config.PUBLIC_URL });
const credentialCapsOf = ({ config }: GatewayParts) => ({
  eventTokensPerAccount: config.EVENT_TOKENS_PER_ACCOUNT,
  apiKeysPerAccount: config.API_KEYS_PER_ACCOUNT,
});

/** The management API, limited like the lookups. */
function accountRoute(p: GatewayParts) {
  const { config } = p;
  return accountRouter({
    authenticator: p.authenticator,
    db: p.db,
    services: p.services,
    rawStore: p.rawStore,
    linkTokens: p.linkTokens,
    linkTokenRevocations: p.linkTokenRevocations,
    sites: sitesOptions(p),
    limits: {
      perKey: p.limiter('account', 'k', config.ACCOUNT_RATE_LIMIT_PER_SECOND, true),
      perAccount: p.limiter('account_account', 'a', accountRateLimits(config).management, true),
      perAddress: p.addressLimiter,
    },
    credentialCaps: credentialCapsOf(p),
  });
}

function operatorRoute(p: GatewayParts, token: string) {
  const linkTokens = { tokens: p.linkTokens, revocations: p.linkTokenRevocations };
  const accounts = { producer: p.producer, ...p.services, rawStore: p.rawStore, sites: sitesOptions(p), credentialCaps: credentialCapsOf(p), linkTokens };
  return operatorRouter({ token, db: p.db, addressLimiter: p.addressLimiter, logger: p.logger, accounts });
}

/** POST /collect with its site cache, caps and metrics, and GET /s/<site key>.js (the tag with the site's settings) through the same cache. */
function collectRoute(p: GatewayParts) {
  const { config, redis, metrics, onRedisFailure } = p;
  const accepted = metrics.counter('glimpse_collect_accepted_total', 'Events of the site tag acknowledged by Kafka and answered 200');
  const bots = metrics.counter('glimpse_collect_bots_total', 'Page views from bot user agents, by what matched (bounded)', ['reason']);
  const dropped = metrics.counter(
    'glimpse_collect_dropped_total',
    'Events of the site tag dropped: track names the site does not allow, identify without a valid email, form captures the site does not take, invalid or expired link tokens, anything identifying from a cookieless visitor',
    ['reason'],
  );
  const capped = metrics.counter('glimpse_collect_capped_total', 'What the per-site and per-account caps of POST /collect refused, by reason', ['reason']);
  const label = createReasonLabels();
  const sites = siteCache(p);
  return [
    siteScriptRouter({ sites }),
    collectRouter({
      sites,
      producer: p.producer,
      rateLimiter: p.limiter('collect', 's', config.COLLECT_RATE_LIMIT_PER_SECOND),
      addressRateLimiter: p.limiter('collect_ip', 'ip', config.COLLECT_RATE_LIMIT_PER_IP_PER_SECOND),
      salt: createDailySalt({ redis, onFallback: (err) => onRedisFailure('cookieless_salt', err) }),
      linkTokens: p.linkTokenRevocations,
      onAccepted: (n) => accepted.inc(n),
      onBot: (reason, n) => bots.inc({ reason: label(reason) }, n),
      caps: createCollectCaps({
        redis,
        newVisitorsPerDay: config.NEW_VISITORS_PER_SITE_PER_DAY,
        identifiesPerMinute: config.COLLECT_IDENTIFIES_PER_ACCOUNT_PER_MINUTE,
        onFailure: onRedisFailure,
        onCapped: (reason, n) => capped.inc({ reason }, n),
      }),
      onDropped: (reason, n) => dropped.inc({ reason }, n),
    }),
  ];
}

/** The sites by their public key, cached; look-ups that reach Postgres are limited per address. */
function siteCache({ config, db, metrics }: GatewayParts) {
  const siteLookups = metrics.counter(
    'glimpse_site_key_lookups_total',
    'Site-key look-ups that reached Postgres, by what they found (site, unknown, failed), and those refused to an address over its budget (refused)',
    ['result'],
  );
  return createSiteCache({
    load: (key) => findSiteByKey(db, key),
    ttlMs: config.SITE_CACHE_TTL_MS,
    negativeTtlMs: config.SITE_CACHE_NEGATIVE_TTL_MS,
    staleIfErrorMs: config.SITE_CACHE_STALE_IF_ERROR_MS,
    maxEntries: config.SITE_CACHE_MAX_ENTRIES,
    maxUnknownEntries: config.SITE_CACHE_UNKNOWN_MAX_ENTRIES,
    missLimiter: createAddressLimiter({ perSecond: config.SITE_KEY_LOOKUPS_PER_IP_PER_SECOND, burst: config.SITE_KEY_LOOKUPS_PER_IP_BURST }),
    onLookup: (result) => siteLookups.inc({ result }),
  });
}
