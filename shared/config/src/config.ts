// Parses a service's environment with its zod schema, once at start-up, failing fast with a
// message that names each offending variable.
import { z } from 'zod';
// The local-development defaults, also read by the scripts (scripts/infra/env.js) and prisma.config.ts.
import LOCAL_DEFAULTS from './defaults.json';

export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

export function parseConfig<S extends z.ZodType>(
  schema: S,
  env: Record<string, string | undefined> = process.env,
): z.infer<S> {
  const result = schema.safeParse(env);
  if (result.success) return result.data;
  const problems = result.error.issues.map((i) => `${i.path.join('.') || '(env)'}: ${i.message}`);
  throw new ConfigError(`invalid configuration: ${problems.join('; ')}`);
}

/** Variables every service shares, with local-development defaults. */
export const baseEnv = {
  NODE_ENV: z.enum(['development', 'test', 'production']).default('development'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  DATABASE_URL: z.string().url().default(LOCAL_DEFAULTS.DATABASE_URL),
  REDIS_URL: z.string().url().default(LOCAL_DEFAULTS.REDIS_URL),
  KAFKA_BROKERS: z
    .string()
    .default(LOCAL_DEFAULTS.KAFKA_BROKERS)
    .transform((s) => s.split(',').map((b) => b.trim()).filter(Boolean)),
  /** TLS to the brokers; the CA comes from the system store plus NODE_EXTRA_CA_CERTS. */
  KAFKA_SSL: z.enum(['true', 'false']).default('false').transform((v) => v === 'true'),
  /** SASL over the connection (with KAFKA_SASL_USERNAME and KAFKA_SASL_PASSWORD); unset: none. */
  KAFKA_SASL_MECHANISM: z.enum(['plain', 'scram-sha-256', 'scram-sha-512']).optional(),
  KAFKA_SASL_USERNAME: z.string().min(1).optional(),
  KAFKA_SASL_PASSWORD: z.string().min(1).optional(),
};

/** The services that connect to Postgres, each as its own role limited to its own schema. */
export type DatabaseService = keyof typeof LOCAL_DEFAULTS.DATABASE_ROLES;

/** Each service's Postgres role (the migration creates them where they do not exist, and grants each its schema). */
export const DATABASE_ROLES: Readonly<Record<DatabaseService, string>> = LOCAL_DEFAULTS.DATABASE_ROLES;

/** The schema each service's role may use (identity is the gateway's part that owns accounts and credentials). */
export const DATABASE_SCHEMAS: Readonly<Record<DatabaseService, string>> = {
  gateway: 'identity',
  playbook: 'playbook',
  enrichment: 'enrichment',
  webhooks: 'webhooks',
  visitors: 'visitors',
};

/** The same database as `url`, logged in as `role` (no password: for local trust authentication; production's URLs carry their own). */
export function roleDatabaseUrl(url: string, role: string): string {
  const parsed = new URL(url);
  parsed.username = role;
  parsed.password = '';
  return parsed.toString();
}

/** A service's DATABASE_URL: locally, the development database as the service's own role. */
export function databaseUrlEnv(service: DatabaseService) {
  return z.string().url().default(roleDatabaseUrl(LOCAL_DEFAULTS.DATABASE_URL, DATABASE_ROLES[service]));
}

/** The Kafka connection settings of a parsed configuration (a service's or a script's). */
export interface KafkaConnectionConfig {
  KAFKA_BROKERS: string[];
  KAFKA_SSL: boolean;
  KAFKA_SASL_MECHANISM?: 'plain' | 'scram-sha-256' | 'scram-sha-512';
  KAFKA_SASL_USERNAME?: string;
  KAFKA_SASL_PASSWORD?: string;
}


export const port = (fallback: number) => z.coerce.number().int().min(0).max(65535).default(fallback);

/** The development default of the gateway↔enrichment shared secret; refused in production. */
export const DEV_INTERNAL_TOKEN = 'glimpse-dev-internal-token-not-for-production';

/** The shared secret of the internal APIs: a development default that production must replace. */
export const internalTokenEnv = {
  INTERNAL_TOKEN: z.string().min(16).default(DEV_INTERNAL_TOKEN),
};

/** Arguments for `.refine(...)` on a service schema: production must not run on the default. */
export const internalTokenRequiredInProduction: [(c: { NODE_ENV: string; INTERNAL_TOKEN: string }) => boolean, { message: string; path: string[] }] = [
  (c) => c.NODE_ENV !== 'production' || c.INTERNAL_TOKEN !== DEV_INTERNAL_TOKEN,
  { message: 'INTERNAL_TOKEN must be set in production', path: ['INTERNAL_TOKEN'] },
];
