// The CLI's environment: the gateway's operator API (GLIMPSE_URL, GLIMPSE_OPERATOR_TOKEN), which
// every command goes through, and the data the imports write (through the owning service's import
// code, logged in as that service's role). The caps are the services' own: the CLI reads none.
import { baseEnv, DATABASE_ROLES, parseConfig, roleDatabaseUrl, z, type DatabaseService } from '@glimpse/config';

const schema = z.object({
  /** The database; ENRICHMENT_DATABASE_URL defaults to it, logged in as glimpse_enrichment (local trust authentication). */
  DATABASE_URL: baseEnv.DATABASE_URL,
  /** The enrichment service's data (import persons and visitors, demo), as glimpse_enrichment. */
  ENRICHMENT_DATABASE_URL: z.string().url().optional(),
  /**
   * The operator API (a gateway's /operator): where a gateway answers, and the operator token it
   * was given (its OPERATOR_TOKEN). Every command but the imports goes through it; the imports ask
   * it whether the --account exists.
   */
  GLIMPSE_URL: z.preprocess((v) => (v === '' ? undefined : v), z.string().url().optional()),
  GLIMPSE_OPERATOR_TOKEN: z.preprocess((v) => (v === '' ? undefined : v), z.string().optional()),
  /** Region for phone numbers in imports written without a country code. */
  DEFAULT_PHONE_REGION: z
    .string()
    .regex(/^[A-Z]{2}$/)
    .default('US'),
});

export type CliConfig = z.infer<typeof schema>;

export function loadConfig(env: Record<string, string | undefined> = process.env): CliConfig {
  return parseConfig(schema, env);
}

/** The one service whose database the CLI opens, for the imports: through its own code, as its role. */
export type CliService = Extract<DatabaseService, 'enrichment'>;

/** Where a service's data is, as that service's role. */
export function serviceDatabaseUrl(config: CliConfig, service: CliService): string {
  return (service === 'enrichment' ? config.ENRICHMENT_DATABASE_URL : undefined) ?? roleDatabaseUrl(config.DATABASE_URL, DATABASE_ROLES[service]);
}
