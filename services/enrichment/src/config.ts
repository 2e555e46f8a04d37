// The enrichment service's environment, parsed once at start-up.
import { groupIdEnv, internalServiceSchema, parseConfig, port, z } from '@glimpse/config';

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
  },
  { callers: ['gateway', 'webhooks'], host: '127.0.0.1' },
);

export type EnrichmentConfig = z.infer<typeof schema>;

export function loadConfig(env: Record<string, string | undefined> = process.env): EnrichmentConfig {
  return parseConfig(schema, env);
}
