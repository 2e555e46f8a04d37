// The enrichment service's environment, parsed once at start-up.
import { groupIdEnv, internalServiceSchema, parseConfig, port, z } from '@glimpse/config';

/** The development billing key: production must set its own (ENRICHMENT_BILLING_KEY). */
export const DEV_BILLING_KEY = 'glimpse-dev-enrichment-billing-key-not-for-production';

/**
 * The callers of the internal API and their tokens (caller=token,…): the gateway, and the webhooks
 * service (person details only). HOST: not public, only they call it, so it listens on loopback
 * unless told otherwise.
 */
const schema = internalServiceSchema(
  'enrichment',
  {
    ENRICHMENT_PORT: port(8081),
    /** Region for phone numbers written without a country code (ISO 3166 alpha-2). */
    DEFAULT_PHONE_REGION: z
      .string()
      .regex(/^[A-Z]{2}$/)
      .default('US'),
    /** The consumer group on the accounts topic (a deletion removes the account's visitors, usage and credits). */
    ENRICHMENT_ACCOUNTS_GROUP_ID: groupIdEnv('glimpse-enrichment-accounts'),
    /** The key of a billed person's hash (billed_persons.person_key: HMAC of the email under a per-account key). */
    ENRICHMENT_BILLING_KEY: z.string().min(32, 'ENRICHMENT_BILLING_KEY must be at least 32 characters').default(DEV_BILLING_KEY),
  },
  { callers: ['gateway', 'webhooks'], host: '127.0.0.1', secrets: { ENRICHMENT_BILLING_KEY: DEV_BILLING_KEY } },
);

export type EnrichmentConfig = z.infer<typeof schema>;

export function loadConfig(env: Record<string, string | undefined> = process.env): EnrichmentConfig {
  return parseConfig(schema, env);
}
