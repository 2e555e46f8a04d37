// The playbook service's environment, parsed once at start-up.
import type { PlaybookLimits } from './domain/limits.js';
import { groupIdEnv, internalServiceSchema, parseConfig, port, sessionTimeoutEnv, z } from '@glimpse/config';

/** The development erasure secret: production must set its own (PLAYBOOK_ERASURE_KEY). */
export const DEV_ERASURE_KEY = 'glimpse-dev-playbook-erasure-key-not-for-production';

/** The callers of the internal API (/internal/…): the gateway only. */
const schema = internalServiceSchema(
  'playbook',
  {
    /** Port of the internal management API (for the gateway) and the health, readiness and metrics endpoints. */
    PLAYBOOK_PORT: port(8082),
    PLAYBOOK_GROUP_ID: groupIdEnv('glimpse-playbook'),
    /** The consumer group on the accounts topic; by default PLAYBOOK_GROUP_ID + "-accounts". */
    PLAYBOOK_ACCOUNTS_GROUP_ID: z.string().min(1).optional(),
    PLAYBOOK_CONCURRENCY: z.coerce.number().int().positive().default(12),
    /** Consumer group session: how long a dead instance holds its partitions before they move (Kafka's minimum is 6000). */
    PLAYBOOK_SESSION_TIMEOUT_MS: sessionTimeoutEnv(),
    /** Most events applied in one transaction (a fetched batch is cut into chunks of this size). */
    PLAYBOOK_MAX_BATCH: z.coerce.number().int().min(1).max(10_000).default(1000),
    /** Attempts of one failing event (with back-off) before it goes to events.inbound.dlq. */
    PLAYBOOK_MAX_ATTEMPTS: z.coerce.number().int().min(1).max(100).default(3),
    /** First back-off between attempts; doubles up to PLAYBOOK_RETRY_BACKOFF_MAX_MS (also the pause while Postgres is down). */
    PLAYBOOK_RETRY_BACKOFF_MS: z.coerce.number().int().min(1).default(200),
    PLAYBOOK_RETRY_BACKOFF_MAX_MS: z.coerce.number().int().min(1).default(5000),
    /** A partition behind and without progress this long makes the replica unready (stuck). */
    PLAYBOOK_STUCK_AFTER_MS: z.coerce.number().int().min(1000).default(60_000),
    /** How often end and committed offsets are read from the broker for the lag. */
    PLAYBOOK_LAG_POLL_MS: z.coerce.number().int().min(100).default(5000),
    /** Processed event ids are kept this long (dedupe of redeliveries), then deleted. */
    PLAYBOOK_PROCESSED_RETENTION_HOURS: z.coerce.number().int().min(25).default(72),
    PLAYBOOK_PROCESSED_PURGE_INTERVAL_MS: z.coerce.number().int().min(1000).default(3_600_000),
    /** How often unpublished effects are swept to playbook.effects (stops by suppression or erasure, and any the consumer could not publish). */
    PLAYBOOK_EFFECTS_SWEEP_INTERVAL_MS: z.coerce.number().int().min(100).default(2000),
    /** Most playbooks one account may have. */
    PLAYBOOKS_PER_ACCOUNT: z.coerce.number().int().min(1).default(200),
    /** Most triggers, and most exits, one playbook may have. */
    TRIGGERS_PER_PLAYBOOK: z.coerce.number().int().min(1).default(50),
    EXITS_PER_PLAYBOOK: z.coerce.number().int().min(1).default(50),
    /** Most event names in an account's catalog: a name first sent after it is full is applied (exits, receipts) but not catalogued. */
    CATALOG_NAMES_PER_ACCOUNT: z.coerce.number().int().min(1).max(100_000).default(1000),
    /** Most suppressed people one account may have. */
    SUPPRESSIONS_PER_ACCOUNT: z.coerce.number().int().min(1).default(100_000),
    /**
     * The secret behind an erased person's stand-in (createErasedEmail: HMAC-SHA256 of the email under
     * a per-account key derived from it; at least 32 characters, e.g. `openssl rand -hex 32`). Stored
     * stand-ins keep the value they got; after a change, a person erased again gets a new one, and
     * the tombstones of erasures made before it (kept 72 h) no longer drop that person's queued events.
     */
    PLAYBOOK_ERASURE_KEY: z.string().min(32).default(DEV_ERASURE_KEY),
  },
  { callers: ['gateway'], secrets: { PLAYBOOK_ERASURE_KEY: DEV_ERASURE_KEY } },
);

export type PlaybookConfig = z.infer<typeof schema>;

/** What one account may have, from the configuration. */
export function playbookLimits(config: PlaybookConfig): PlaybookLimits {
  return {
    playbooksPerAccount: config.PLAYBOOKS_PER_ACCOUNT,
    triggersPerPlaybook: config.TRIGGERS_PER_PLAYBOOK,
    exitsPerPlaybook: config.EXITS_PER_PLAYBOOK,
    catalogNamesPerAccount: config.CATALOG_NAMES_PER_ACCOUNT,
    suppressionsPerAccount: config.SUPPRESSIONS_PER_ACCOUNT,
  };
}

export function loadConfig(env: Record<string, string | undefined> = process.env): PlaybookConfig {
  return parseConfig(schema, env);
}
