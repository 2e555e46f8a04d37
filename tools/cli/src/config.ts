// The CLI's environment: where each service's data is. The CLI works in a service's schema only
// through that service's library, logged in as that service's role.
import { baseEnv, DATABASE_ROLES, internalTokenEnv, parseConfig, roleDatabaseUrl, z, type DatabaseService } from '@glimpse/config';

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
  /** Region for phone numbers in imports written without a country code. */
  DEFAULT_PHONE_REGION: z.string().regex(/^[A-Z]{2}$/).default('US'),
});

export type CliConfig = z.infer<typeof schema>;

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
