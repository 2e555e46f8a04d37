// The enrichment service's environment, parsed once at start-up.
import { baseEnv, databaseUrlEnv, internalTokensEnv, internalTokensRequiredInProduction, parseConfig, port, z } from '@glimpse/config';

const schema = z
  .object({
    ...baseEnv,
    DATABASE_URL: databaseUrlEnv('enrichment'),
    ENRICHMENT_PORT: port(8081),
    /** Not public: only the gateway calls it, so it listens on loopback unless told otherwise. */
    HOST: z.string().default('127.0.0.1'),
    /** The callers of the internal API and their tokens (caller=token,…): the gateway, and the webhooks service (person details only). */
    ...internalTokensEnv(['gateway', 'webhooks']),
    /** Region for phone numbers written without a country code (ISO 3166 alpha-2). */
    DEFAULT_PHONE_REGION: z.string().regex(/^[A-Z]{2}$/).default('US'),
    /** The consumer group on the accounts topic (a deletion removes the account's visitors, usage and credits). */
    ENRICHMENT_ACCOUNTS_GROUP_ID: z.string().min(1).default('glimpse-enrichment-accounts'),
  })
  .refine(...internalTokensRequiredInProduction);

export type EnrichmentConfig = z.infer<typeof schema>;

export function loadConfig(env: Record<string, string | undefined> = process.env): EnrichmentConfig {
  return parseConfig(schema, env);
}
