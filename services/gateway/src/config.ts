// The gateway's environment, parsed once at start-up.
import { internalTokenEnv, internalTokenRequiredInProduction, parseConfig, port, secretRequiredInProduction, serviceEnv, z } from '@glimpse/config';

/** The operator token production accepts: this long at least, and not one character repeated or a short pattern. */
export const OPERATOR_TOKEN_MIN_PRODUCTION = 32;
const OPERATOR_TOKEN_MIN_DISTINCT = 10;

/** Whether an operator token is strong enough for production (what `openssl rand -hex 32` makes is). */
export function strongOperatorToken(token: string): boolean {
  return token.length >= OPERATOR_TOKEN_MIN_PRODUCTION && new Set(token).size >= OPERATOR_TOKEN_MIN_DISTINCT;
}

/** The development default of LINK_TOKEN_SECRET; refused in production like INTERNAL_TOKEN's. */
export const DEV_LINK_TOKEN_SECRET = 'glimpse-dev-link-token-secret-not-for-production';

const ms = (fallback: number) => z.coerce.number().int().min(0).default(fallback);
const positive = (fallback: number) => z.coerce.number().int().positive().default(fallback);

const schema = z
  .object({
    ...serviceEnv('gateway'),
    PORT: port(8080),
    /** Which peers may name the client in X-Forwarded-For (express "trust proxy"): true, false, a hop count, or address ranges. */
    TRUST_PROXY: z.string().default('loopback, linklocal, uniquelocal'),
    /** Requests per second per account on POST /events (per account, across all gateways). */
    EVENTS_RATE_LIMIT_PER_SECOND: positive(2000),
    EVENTS_BODY_LIMIT_BYTES: positive(32 * 1024),
    /** POST /events/batch: the whole body (each event within it is held to EVENTS_BODY_LIMIT_BYTES). */
    EVENTS_BATCH_BODY_LIMIT_BYTES: positive(512 * 1024),
    /** Requests per second per API key on the two lookups, and on the management API (across all gateways). */
    LOOKUPS_RATE_LIMIT_PER_SECOND: positive(100),
    ACCOUNT_RATE_LIMIT_PER_SECOND: positive(50),
    /**
     * The same per account, every API key of it together (so more keys do not multiply the rate);
     * by default twice the per-key limit (accountRateLimits).
     */
    LOOKUPS_RATE_LIMIT_PER_ACCOUNT_PER_SECOND: z.coerce.number().int().positive().optional(),
    ACCOUNT_RATE_LIMIT_PER_ACCOUNT_PER_SECOND: z.coerce.number().int().positive().optional(),
    /** Caps per account: active event tokens, active API keys (revoked ones are not counted), and sites. Past one: 409 limit_reached. */
    EVENT_TOKENS_PER_ACCOUNT: positive(50),
    API_KEYS_PER_ACCOUNT: positive(50),
    SITES_PER_ACCOUNT: positive(50),
    /** Credential look-ups that reach Postgres, per client address and gateway: a steady rate and a burst. */
    AUTH_LOOKUPS_PER_IP_PER_SECOND: positive(20),
    AUTH_LOOKUPS_PER_IP_BURST: positive(100),
    /** Raw events kept in Redis per account (the newest); older raw copies are deleted. */
    RAW_EVENTS_PER_ACCOUNT: positive(10_000),
    /** Bytes of raw copies kept in Redis per account (their compact form); over it, the account's oldest copies go. */
    RAW_EVENT_BYTES_PER_ACCOUNT: positive(8 * 1024 * 1024),
    /** Idempotency-Keys an account may hold (events' and lookups' together, each counted 25 h from its claim), and their bytes; over either, 429 idempotency_budget_exceeded. */
    IDEMPOTENCY_KEYS_PER_ACCOUNT: positive(1_000_000),
    IDEMPOTENCY_KEY_BYTES_PER_ACCOUNT: positive(256 * 1024 * 1024),
    /** A Redis Cluster ("host:port,host:port,…", some of its nodes): when set, every Redis use goes to it instead of REDIS_URL. */
    REDIS_CLUSTER_NODES: z
      .string()
      .optional()
      .transform((value, ctx) => {
        if (value === undefined || value.trim() === '') return undefined;
        try {
          return parseClusterNodes(value);
        } catch (err) {
          ctx.addIssue({ code: 'custom', message: (err as Error).message });
          return z.NEVER;
        }
      }),
    /** AUTH for Redis (the cluster's nodes, or REDIS_URL when its URL carries none). */
    REDIS_PASSWORD: z.string().min(1).optional(),
    /** Raw copies are written to a Redis master only while it uses less than this share of its maxmemory (the rest is for counters and keys). */
    REDIS_RAW_MEMORY_FRACTION: z.coerce.number().gt(0).max(1).default(0.75),
    /** Idempotency keys are held on a Redis master only while it uses less than this share of its maxmemory (the rest is for rate-limit counters). */
    REDIS_KEYS_MEMORY_FRACTION: z.coerce.number().gt(0).max(1).default(0.9),
    /** After Redis has failed this long for a subject, the lookups and the management API answer 503 instead of limiting on this gateway's own counts. */
    REDIS_FAIL_CLOSED_AFTER_MS: ms(3000),
    /** Micro-batching of Kafka sends: wait at most this long, or until this many are queued. */
    KAFKA_LINGER_MS: ms(2),
    KAFKA_MAX_BATCH: positive(500),
    /** The most bytes in one Kafka request (keys, values, headers): under the broker's message.max.bytes (1 MB by default). */
    KAFKA_MAX_BATCH_BYTES: positive(900_000),
    /** A send not acknowledged within this is refused (503); the Kafka request itself is bounded inside it. */
    KAFKA_SEND_TIMEOUT_MS: z.coerce.number().int().min(500).default(5000),
    /** How long credential lookups are cached; revocation takes effect within this. */
    AUTH_CACHE_TTL_MS: ms(2000),
    /** While Postgres fails, a credential seen valid is still accepted this long past its cache time. */
    AUTH_STALE_IF_ERROR_MS: ms(600_000),
    /** Unknown or revoked credentials are remembered this long (one query per made-up token at most). */
    AUTH_NEGATIVE_CACHE_TTL_MS: ms(30_000),
    AUTH_CACHE_MAX_ENTRIES: positive(10_000),
    /** Postgres timeouts of the gateway's pool (credentials and the management API). */
    DB_CONNECT_TIMEOUT_MS: positive(3000),
    DB_STATEMENT_TIMEOUT_MS: positive(5000),
    DB_IDLE_IN_TRANSACTION_TIMEOUT_MS: positive(5000),
    DB_IDLE_TIMEOUT_MS: positive(30_000),
    /** How often the outbox of account events (identity.account_events) is published to the accounts topic. */
    ACCOUNT_EVENTS_PUBLISH_INTERVAL_MS: z.coerce.number().int().min(100).default(2000),
    /** The internal enrichment service (lookups, usage), and the secret the internal services expect. */
    ENRICHMENT_URL: z.string().url().default('http://127.0.0.1:8081'),
    ...internalTokenEnv,
    LOOKUP_TIMEOUT_MS: positive(5000),
    /** The internal playbook service: the management API's playbooks, enrollments and catalog. */
    PLAYBOOK_URL: z.string().url().default('http://127.0.0.1:8082'),
    /** The internal webhooks service: the management API's webhook endpoints and deliveries. */
    WEBHOOKS_URL: z.string().url().default('http://127.0.0.1:8083'),
    /** The internal visitors service: visitors, sessions, identity links and per-site traffic. */
    VISITORS_URL: z.string().url().default('http://127.0.0.1:8084'),
    /** Where browsers reach the gateway (a CNAME of the site keeps the visitor cookie first-party); the install snippet names it. Default: the address a request came to. */
    PUBLIC_URL: z.string().url().optional(),
    /** Requests per second per site on POST /collect (across all gateways). */
    COLLECT_RATE_LIMIT_PER_SECOND: positive(200),
    /** How long a site key's answer (its site, or that it names none) is kept; origin changes take effect within it. */
    SITE_CACHE_TTL_MS: ms(5000),
    SITE_CACHE_NEGATIVE_TTL_MS: ms(5000),
    /** While Postgres fails, a site seen a moment ago keeps collecting this long past its cache time. */
    SITE_CACHE_STALE_IF_ERROR_MS: ms(600_000),
    SITE_CACHE_MAX_ENTRIES: positive(10_000),
    /** Unknown site keys remembered (for SITE_CACHE_NEGATIVE_TTL_MS), apart from the real sites: they never push one out. */
    SITE_CACHE_UNKNOWN_MAX_ENTRIES: positive(10_000),
    /** Site-key look-ups that reach Postgres (a key the cache does not hold), per client address and gateway: a steady rate and a burst; beyond, 429. */
    SITE_KEY_LOOKUPS_PER_IP_PER_SECOND: positive(2),
    SITE_KEY_LOOKUPS_PER_IP_BURST: positive(30),
    /** Requests per second per client address on POST /collect (IPv6 by /64), checked before the site's limit. */
    COLLECT_RATE_LIMIT_PER_IP_PER_SECOND: positive(50),
    /** New visitor ids minted per site and UTC day when the site sets none (sites.new_visitors_per_day); past it a page view is counted cookieless. */
    NEW_VISITORS_PER_SITE_PER_DAY: positive(100_000),
    /** Identifies (identify calls, captured forms, email links) per account and minute at POST /collect, all gateways; past it they are dropped before Kafka. */
    COLLECT_IDENTIFIES_PER_ACCOUNT_PER_MINUTE: positive(1000),
    /** The secret email-link tokens are sealed with (AES-256-GCM, key by HKDF); changing it invalidates every token issued. */
    LINK_TOKEN_SECRET: z.string().min(32, 'LINK_TOKEN_SECRET must be at least 32 characters').default(DEV_LINK_TOKEN_SECRET),
    /** How long POST /collect keeps a link token's revocation state: a revocation through another gateway takes effect within it. */
    LINK_TOKEN_REVOCATION_CACHE_MS: ms(30_000),
    /**
     * The operator API's bearer token (/operator: accounts' add-ons). Unset or empty: there is no
     * operator API (/operator answers 404). No development default: an operator API is opt-in.
     */
    OPERATOR_TOKEN: z.preprocess((v) => (v === '' ? undefined : v), z.string().min(16, 'OPERATOR_TOKEN must be at least 16 characters').optional()),
  })
  .refine(...internalTokenRequiredInProduction)
  .refine((c) => c.REDIS_RAW_MEMORY_FRACTION <= c.REDIS_KEYS_MEMORY_FRACTION, {
    message: 'REDIS_RAW_MEMORY_FRACTION must not be above REDIS_KEYS_MEMORY_FRACTION (raw copies stop first)',
    path: ['REDIS_RAW_MEMORY_FRACTION'],
  })
  .refine(...secretRequiredInProduction('LINK_TOKEN_SECRET', DEV_LINK_TOKEN_SECRET))
  .refine((c) => c.NODE_ENV !== 'production' || c.OPERATOR_TOKEN === undefined || strongOperatorToken(c.OPERATOR_TOKEN), {
    message: `OPERATOR_TOKEN must be at least ${OPERATOR_TOKEN_MIN_PRODUCTION} random characters in production (e.g. openssl rand -hex 32)`,
    path: ['OPERATOR_TOKEN'],
  });

/** Parses REDIS_CLUSTER_NODES ("host:port,host:port"); throws on a malformed entry. */
export function parseClusterNodes(value: string): { host: string; port: number }[] {
  return value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .map((entry) => {
      const match = /^(\[[0-9a-fA-F:]+\]|[A-Za-z0-9.-]+):(\d{1,5})$/.exec(entry);
      const port = Number(match?.[2]);
      if (!match || !(port >= 1 && port <= 65535)) throw new Error(`"${entry}" is not host:port`);
      return { host: match[1]!.replace(/^\[|\]$/g, ''), port };
    });
}

export type GatewayConfig = z.infer<typeof schema>;

export function loadConfig(env: Record<string, string | undefined> = process.env): GatewayConfig {
  return parseConfig(schema, env);
}

/** The per-account limits of the lookups and the management API: as set, or twice the per-key ones. */
export function accountRateLimits(
  c: Pick<
    GatewayConfig,
    | 'LOOKUPS_RATE_LIMIT_PER_SECOND'
    | 'ACCOUNT_RATE_LIMIT_PER_SECOND'
    | 'LOOKUPS_RATE_LIMIT_PER_ACCOUNT_PER_SECOND'
    | 'ACCOUNT_RATE_LIMIT_PER_ACCOUNT_PER_SECOND'
  >,
): { lookups: number; management: number } {
  return {
    lookups: c.LOOKUPS_RATE_LIMIT_PER_ACCOUNT_PER_SECOND ?? 2 * c.LOOKUPS_RATE_LIMIT_PER_SECOND,
    management: c.ACCOUNT_RATE_LIMIT_PER_ACCOUNT_PER_SECOND ?? 2 * c.ACCOUNT_RATE_LIMIT_PER_SECOND,
  };
}

/** express's "trust proxy" value from TRUST_PROXY: a boolean, a hop count, or address ranges. */
export function trustProxySetting(value: string): boolean | number | string {
  if (value === 'true' || value === 'false') return value === 'true';
  return /^\d+$/.test(value) ? Number(value) : value;
}
