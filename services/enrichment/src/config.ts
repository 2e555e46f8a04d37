// The enrichment service's environment, parsed once at start-up.
import { groupIdEnv, internalTokensEnv, internalTokensRequiredInProduction, parseConfig, port, serviceEnv, z } from '@glimpse/config';

const schema = z
  .object({
    /** HOST: not public, only the gateway and webhooks call it, so it listens on loopback unless told otherwise. */
    ...serviceEnv('enrichment', { host: '127.0.0.1' }),
    ENRICHMENT_PORT: port(8081),
    /** The callers of the internal API and their tokens (caller=token,…): the gateway, and the webhooks service (person details only). */
    ...internalTokensEnv(['gateway', 'webhooks']),
    /** Region for phone numbers written without a country code (ISO 3166 alpha-2). */
    DEFAULT_PHONE_REGION: z
      .string()
      .regex(/^[A-Z]{2}$/)
      .default('US'),
    /** The consumer group on the accounts topic (a deletion removes the account's visitors, usage and credits). */
    ENRICHMENT_ACCOUNTS_GROUP_ID: groupIdEnv('glimpse-enrichment-accounts'),
  })
  .refine(...internalTokensRequiredInProduction);

export type EnrichmentConfig = z.infer<typeof schema>;

export function loadConfig(env: Record<string, string | undefined> = process.env): EnrichmentConfig {
  return parseConfig(schema, env);
}
