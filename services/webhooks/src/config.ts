// The webhooks service's environment, parsed once at start-up.
import {
  groupIdEnv,
  internalServiceSchema,
  internalTokenEnvFor,
  internalTokenRequiredInProduction,
  parseConfig,
  port,
  sessionTimeoutEnv,
  z,
} from '@glimpse/config';

const ms = (fallback: number) => z.coerce.number().int().min(1).default(fallback);
const flag = z.enum(['true', 'false']).transform((v) => v === 'true');
const HOUR = 60 * 60 * 1000;
const list = z
  .string()
  .optional()
  .transform((v) =>
    (v ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
  );

/** The development key of the signing secrets' encryption: production must set its own (WEBHOOKS_SECRET_KEY). */
export const DEV_WEBHOOKS_SECRET_KEY = 'glimpse-dev-webhooks-secret-key-not-for-production';

/** The callers of its internal API: the gateway. */
const schema = internalServiceSchema(
  'webhooks',
  {
    /** Port of the internal management API (for the gateway) and the health, readiness and metrics endpoints. */
    WEBHOOKS_PORT: port(8083),
    /** The consumer group on playbook.effects. */
    WEBHOOKS_GROUP_ID: groupIdEnv('glimpse-webhooks'),
    /** The consumer group on the accounts topic (a deletion removes the account's endpoints). */
    WEBHOOKS_ACCOUNTS_GROUP_ID: groupIdEnv('glimpse-webhooks-accounts'),
    /** The consumer group on visitors.identified (each becomes a visitor.identified delivery). */
    WEBHOOKS_IDENTIFIED_GROUP_ID: groupIdEnv('glimpse-webhooks-identified'),
    /** The consumer group on visitors.companies (a company's first visit to a site in a window becomes a company.visited delivery). */
    WEBHOOKS_COMPANIES_GROUP_ID: groupIdEnv('glimpse-webhooks-companies'),
    /** The consumer group on visitors.segments (segment alerts: each entry and digest becomes a segment.entered or segment.digest delivery, webhook or Slack). */
    WEBHOOKS_SEGMENTS_GROUP_ID: groupIdEnv('glimpse-webhooks-segments'),
    /**
     * The web console's address as people reach it (the gateway's /console/), linked from Slack
     * messages: a member's button opens its company or visitor page there.
     */
    WEBHOOKS_CONSOLE_URL: z.string().url().default('http://127.0.0.1:8080/console/'),
    /** The enrichment service, asked for an identified visitor's person details (the seven api.md §2.1 fields) and a visiting company's firmographics. */
    ENRICHMENT_URL: z.string().url().default('http://127.0.0.1:8081'),
    ENRICHMENT_TIMEOUT_MS: ms(5000),
    WEBHOOKS_SESSION_TIMEOUT_MS: sessionTimeoutEnv(),
    /** Deliveries sent at once by one instance. */
    WEBHOOKS_CONCURRENCY: z.coerce.number().int().positive().default(16),
    /**
     * Deliveries of one account in flight at once, across every instance (their leases in
     * Postgres): an account whose endpoints hang holds at most this many of the slots.
     */
    WEBHOOKS_ACCOUNT_CONCURRENCY: z.coerce.number().int().positive().default(4),
    /** Deliveries to one endpoint in flight at once, across every instance (at most the account's). */
    WEBHOOKS_ENDPOINT_CONCURRENCY: z.coerce.number().int().positive().default(2),
    /** How often the schedule is polled for due deliveries when there was nothing to do. */
    WEBHOOKS_POLL_INTERVAL_MS: ms(1000),
    /** One delivery's request, connection to the last byte of the answer. */
    WEBHOOKS_TIMEOUT_MS: ms(10_000),
    /** One name's resolution (A and AAAA together), at subscription and at each connection. */
    WEBHOOKS_DNS_TIMEOUT_MS: ms(2000),
    /** Name servers asked for targets' addresses (host or host:port, comma-separated); unset: resolv.conf's. */
    WEBHOOKS_DNS_SERVERS: list,
    /**
     * The key (any string of 32 or more characters, e.g. 32 random bytes in hex) the endpoints'
     * signing secrets are encrypted with in Postgres (AES-256-GCM under a key derived from it).
     * Production refuses the development default.
     */
    WEBHOOKS_SECRET_KEY: z.string().min(32, 'WEBHOOKS_SECRET_KEY must be at least 32 characters').default(DEV_WEBHOOKS_SECRET_KEY),
    /** Keys secrets may still be encrypted with (comma-separated), during a change of WEBHOOKS_SECRET_KEY; they are re-encrypted at start. */
    WEBHOOKS_SECRET_KEY_PREVIOUS: list,
    /** Retries: the first waits this long, each next twice as long (±20 %), at most WEBHOOKS_RETRY_MAX_DELAY_MS. */
    WEBHOOKS_RETRY_BASE_MS: ms(10_000),
    WEBHOOKS_RETRY_MAX_DELAY_MS: ms(3 * HOUR),
    /** A delivery is given up this long after its first attempt (or after its endpoint is re-enabled). */
    WEBHOOKS_RETRY_WINDOW_MS: ms(24 * HOUR),
    /** An endpoint whose attempts have all failed for this long is disabled until re-enabled. */
    WEBHOOKS_DISABLE_AFTER_MS: ms(24 * HOUR),
    /** After a secret rotation the previous secret also signs for this long. */
    WEBHOOKS_ROTATION_GRACE_MS: ms(24 * HOUR),
    /** Finished deliveries and their attempts are deleted after this (pending ones too, past it). */
    WEBHOOKS_RETENTION_MS: ms(7 * 24 * HOUR),
    WEBHOOKS_MAX_ENDPOINTS_PER_ACCOUNT: z.coerce.number().int().positive().default(20),
    /**
     * SSRF guard: refuse targets whose addresses are private, loopback, link-local or otherwise not
     * public unicast. Always on in production; on elsewhere only when set.
     */
    WEBHOOKS_BLOCK_PRIVATE_TARGETS: flag.optional(),
    /** With the guard on, still allow loopback targets (tests' local receivers). */
    WEBHOOKS_ALLOW_LOOPBACK: flag.default(false),
    /**
     * Only https:// targets (http:// to a loopback host stays allowed with WEBHOOKS_ALLOW_LOOPBACK:
     * nothing leaves the host). Always on in production; elsewhere http is allowed unless set.
     */
    WEBHOOKS_REQUIRE_HTTPS: flag.optional(),
    /** This service's own token, sent to the enrichment service. */
    ...internalTokenEnvFor('webhooks'),
  },
  { callers: ['gateway'], secrets: { WEBHOOKS_SECRET_KEY: DEV_WEBHOOKS_SECRET_KEY } },
)
  .refine(...internalTokenRequiredInProduction)
  .refine((c) => c.WEBHOOKS_ENDPOINT_CONCURRENCY <= c.WEBHOOKS_ACCOUNT_CONCURRENCY && c.WEBHOOKS_ACCOUNT_CONCURRENCY <= c.WEBHOOKS_CONCURRENCY, {
    message: 'WEBHOOKS_ENDPOINT_CONCURRENCY <= WEBHOOKS_ACCOUNT_CONCURRENCY <= WEBHOOKS_CONCURRENCY',
    path: ['WEBHOOKS_ACCOUNT_CONCURRENCY'],
  })
  .refine((c) => c.NODE_ENV !== 'production' || c.WEBHOOKS_REQUIRE_HTTPS !== false, {
    message: 'http targets cannot be allowed in production',
    path: ['WEBHOOKS_REQUIRE_HTTPS'],
  })
  .refine((c) => c.NODE_ENV !== 'production' || c.WEBHOOKS_BLOCK_PRIVATE_TARGETS !== false, {
    message: 'private targets cannot be allowed in production',
    path: ['WEBHOOKS_BLOCK_PRIVATE_TARGETS'],
  })
  .transform((c) => ({
    ...c,
    WEBHOOKS_BLOCK_PRIVATE_TARGETS: c.WEBHOOKS_BLOCK_PRIVATE_TARGETS ?? c.NODE_ENV === 'production',
    WEBHOOKS_REQUIRE_HTTPS: c.WEBHOOKS_REQUIRE_HTTPS ?? c.NODE_ENV === 'production',
  }));

export type WebhooksConfig = z.infer<typeof schema>;

export function loadConfig(env: Record<string, string | undefined> = process.env): WebhooksConfig {
  return parseConfig(schema, env);
}
