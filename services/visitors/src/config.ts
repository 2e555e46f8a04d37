// The visitors service's environment, parsed once at start-up.
import { groupIdEnv, internalServiceSchema, parseConfig, port, sessionTimeoutEnv, z } from '@glimpse/config';

/** The development key of erasure tombstones: production must set its own. */
export const DEV_ERASURE_KEY = 'glimpse-dev-visitors-erasure-key-not-for-production';

/** The callers of the internal API: the gateway only. */
const schema = internalServiceSchema(
  'visitors',
  {
    /** Port of the internal API (for the gateway) and the health, readiness and metrics endpoints. */
    VISITORS_PORT: port(8084),
    /** The consumer group on visitors.collected. */
    VISITORS_GROUP_ID: groupIdEnv('glimpse-visitors'),
    /** The consumer group on the accounts topic (a deletion removes the account's visitors). */
    VISITORS_ACCOUNTS_GROUP_ID: groupIdEnv('glimpse-visitors-accounts'),
    VISITORS_SESSION_TIMEOUT_MS: sessionTimeoutEnv(),
    /** Partitions applied at the same time by one instance. */
    VISITORS_CONCURRENCY: z.coerce.number().int().positive().default(4),
    /** Most messages applied in one transaction. */
    VISITORS_MAX_BATCH: z.coerce.number().int().positive().max(10_000).default(1000),
    /**
     * A fetch waits for this many bytes or VISITORS_FETCH_MAX_WAIT_MS: page views may wait that
     * long, so a consumer that keeps up applies fuller chunks (less CPU per page view). 1: no wait.
     */
    VISITORS_FETCH_MIN_BYTES: z.coerce
      .number()
      .int()
      .positive()
      .default(64 * 1024),
    VISITORS_FETCH_MAX_WAIT_MS: z.coerce.number().int().min(0).max(5000).default(200),
    /** Behind and without progress this long: the replica is unready. */
    VISITORS_STUCK_AFTER_MS: z.coerce.number().int().positive().default(60_000),
    /** Collected message ids (the dedupe) are kept this long: past any redelivery from visitors.collected (about 24.6 h). */
    VISITORS_COLLECTED_RETENTION_HOURS: z.coerce.number().int().min(25).default(48),
    VISITORS_PURGE_INTERVAL_MS: z.coerce
      .number()
      .int()
      .positive()
      .default(15 * 60_000),
    /** Tracks and page-rule events forwarded to events.inbound (into playbooks) per account and window, on each replica; past it they are not sent. */
    VISITORS_FORWARDS_PER_ACCOUNT_PER_WINDOW: z.coerce.number().int().positive().default(1000),
    VISITORS_FORWARDS_WINDOW_MS: z.coerce.number().int().min(1000).default(60_000),
    /** Visitors not seen for this many days are deleted, with their sessions, identity links and page-rule firings (about 13 months). */
    VISITOR_RETENTION_DAYS: z.coerce.number().int().min(1).default(395),
    /** Cookieless (day) profiles are deleted after this many days. */
    VISITOR_COOKIELESS_RETENTION_DAYS: z.coerce.number().int().min(1).default(30),
    /** How often the visitor retention runs (in chunks, one replica at a time). */
    VISITOR_RETENTION_INTERVAL_MS: z.coerce.number().int().positive().default(3_600_000),
    /** Erasure tombstones (dropping identifies of an erased person still in flight) are kept this long. */
    VISITORS_ERASURE_RETENTION_HOURS: z.coerce.number().int().min(25).default(72),
    /** The HMAC key of erasure tombstones (account|email is never stored, only its keyed hash). */
    VISITORS_ERASURE_KEY: z.string().min(32).default(DEV_ERASURE_KEY),
    /** How often a replica asks whether an IP dataset or a network-type override changed (then loads what changed). */
    VISITORS_IP_DATA_POLL_MS: z.coerce.number().int().min(1000).default(30_000),
    /** A company's first visit to a site is announced (company.visited) once per window of this many hours. */
    COMPANY_VISIT_WINDOW_HOURS: z.coerce
      .number()
      .int()
      .min(1)
      .max(24 * 31)
      .default(24),
    /**
     * How long the companies view reuses a window's aggregate (0: never): a dashboard's pages, sorts
     * and CSV within it read one aggregate, and what it shows may be this much behind.
     */
    COMPANIES_VIEW_CACHE_SECONDS: z.coerce.number().int().min(0).max(3600).default(60),
    /** How often a replica evaluates the segments due, publishes their entries and sends the digests due (a segment is evaluated about this often). */
    SEGMENTS_EVALUATE_INTERVAL_MS: z.coerce.number().int().min(1000).max(3_600_000).default(15_000),
    /** Most segments one account may have (past it: 409 limit_reached). */
    SEGMENTS_PER_ACCOUNT: z.coerce.number().int().min(1).max(10_000).default(100),
    /** How often a replica re-scores the accounts whose intent weights or half-life changed (one replica per account at a time). */
    VISITORS_INTENT_RESCORE_INTERVAL_MS: z.coerce.number().int().min(100).max(3_600_000).default(30_000),
    /** Most page rules one account may have (past it: 409 limit_reached). */
    PAGE_RULES_PER_ACCOUNT: z.coerce.number().int().min(1).max(10_000).default(100),
  },
  { callers: ['gateway'], secrets: { VISITORS_ERASURE_KEY: DEV_ERASURE_KEY } },
);

export type VisitorsConfig = z.infer<typeof schema>;

export function loadConfig(env: Record<string, string | undefined> = process.env): VisitorsConfig {
  return parseConfig(schema, env);
}
