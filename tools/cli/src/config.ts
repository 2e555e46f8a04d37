// The CLI's environment: where each service's data is. The CLI works in a service's schema only
// through that service's library, logged in as that service's role.
import { baseEnv, DATABASE_ROLES, internalTokenEnv, parseConfig, roleDatabaseUrl, z, type DatabaseService } from '@glimpse/config';

const cap = z.coerce.number().int().positive().optional();

const schema = z.object({
  /** The database; each service's URL below defaults to it, logged in as the service's role (local trust authentication). */
  DATABASE_URL: baseEnv.DATABASE_URL,
  /** The identity part of the gateway (accounts and credentials), as glimpse_gateway. */
  GATEWAY_DATABASE_URL: z.string().url().optional(),
  PLAYBOOK_DATABASE_URL: z.string().url().optional(),
  ENRICHMENT_DATABASE_URL: z.string().url().optional(),
  KAFKA_BROKERS: baseEnv.KAFKA_BROKERS,
  KAFKA_SSL: baseEnv.KAFKA_SSL,
  KAFKA_SASL_MECHANISM: baseEnv.KAFKA_SASL_MECHANISM,
  KAFKA_SASL_USERNAME: baseEnv.KAFKA_SASL_USERNAME,
  KAFKA_SASL_PASSWORD: baseEnv.KAFKA_SASL_PASSWORD,
  /** The visitors service, asked to delete a deleted site's visitors (sites delete), and the internal token it expects. */
  VISITORS_URL: z.string().url().default('http://127.0.0.1:8084'),
  ...internalTokenEnv,
  /**
   * The operator API (a gateway's /operator): where a gateway answers, and the operator token it
   * was given (its OPERATOR_TOKEN). `account workflows` goes through it and nowhere else.
   */
  GLIMPSE_URL: z.preprocess((v) => (v === '' ? undefined : v), z.string().url().optional()),
  GLIMPSE_OPERATOR_TOKEN: z.preprocess((v) => (v === '' ? undefined : v), z.string().optional()),
  /** Region for phone numbers in imports written without a country code. */
  DEFAULT_PHONE_REGION: z.string().regex(/^[A-Z]{2}$/).default('US'),
  /**
   * The caps per account, under the names the services read them (set them as the services have
   * them): what the CLI creates is held to them too. Unset: each service's default.
   */
  EVENT_TOKENS_PER_ACCOUNT: cap,
  API_KEYS_PER_ACCOUNT: cap,
  PLAYBOOKS_PER_ACCOUNT: cap,
  TRIGGERS_PER_PLAYBOOK: cap,
  EXITS_PER_PLAYBOOK: cap,
  CATALOG_NAMES_PER_ACCOUNT: cap,
  SUPPRESSIONS_PER_ACCOUNT: cap,
});

export type CliConfig = z.infer<typeof schema>;

/** The caps of the CLI's creations, from CliConfig (undefined: the service's default). */
export function capsOf(config: CliConfig) {
  return {
    credentials: { eventTokensPerAccount: config.EVENT_TOKENS_PER_ACCOUNT, apiKeysPerAccount: config.API_KEYS_PER_ACCOUNT },
    playbook: { maxPerAccount: config.PLAYBOOKS_PER_ACCOUNT, maxTriggers: config.TRIGGERS_PER_PLAYBOOK, maxExits: config.EXITS_PER_PLAYBOOK, maxCatalogNames: config.CATALOG_NAMES_PER_ACCOUNT },
    catalogNames: config.CATALOG_NAMES_PER_ACCOUNT,
    suppressions: config.SUPPRESSIONS_PER_ACCOUNT,
  };
}

export function loadConfig(env: Record<string, string | undefined> = process.env): CliConfig {
  return parseConfig(schema, env);
}

/** The CLI's services with data: the webhooks and visitors services have no CLI commands of their own (sites are the gateway's). */
export type CliService = Exclude<DatabaseService, 'webhooks' | 'visitors'>;

/** Where a service's data is, as that service's role. */
export function serviceDatabaseUrl(config: CliConfig, service: CliService): string {
  const explicit = { gateway: config.GATEWAY_DATABASE_URL, playbook: config.PLAYBOOK_DATABASE_URL, enrichment: config.ENRICHMENT_DATABASE_URL }[service];
  return explicit ?? roleDatabaseUrl(config.DATABASE_URL, DATABASE_ROLES[service]);
}
