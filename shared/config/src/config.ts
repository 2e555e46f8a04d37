// Parses a service's environment with its zod schema, once at start-up, failing fast with a
// message that names each offending variable.
import { createHash } from 'node:crypto';
import { z } from 'zod';
// The local-development defaults, also read by the scripts (scripts/infra/env.js) and prisma.config.ts.
import LOCAL_DEFAULTS from './defaults.json';

export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

export function parseConfig<S extends z.ZodType>(schema: S, env: Record<string, string | undefined> = process.env): z.infer<S> {
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
    .transform((s) =>
      s
        .split(',')
        .map((b) => b.trim())
        .filter(Boolean),
    ),
  /** TLS to the brokers; the CA comes from the system store plus NODE_EXTRA_CA_CERTS. */
  KAFKA_SSL: z
    .enum(['true', 'false'])
    .default('false')
    .transform((v) => v === 'true'),
  /** SASL over the connection (with KAFKA_SASL_USERNAME and KAFKA_SASL_PASSWORD); unset: none. */
  KAFKA_SASL_MECHANISM: z.enum(['plain', 'scram-sha-256', 'scram-sha-512']).optional(),
  KAFKA_SASL_USERNAME: z.string().min(1).optional(),
  KAFKA_SASL_PASSWORD: z.string().min(1).optional(),
  /**
   * Health, readiness and metrics on a port of their own (0: a free one), the service's port then
   * serving no /metrics: the monitoring namespace is let in to this port only, never to /internal.
   * Unset: all on the service's port (local development and tests).
   */
  METRICS_PORT: z.coerce.number().int().min(0).max(65535).optional(),
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

/**
 * What every service's schema starts with: the variables all share, DATABASE_URL as the service's
 * own Postgres role, and HOST, the interface it listens on (all of them unless the service says).
 */
export function serviceEnv(service: DatabaseService, { host = '0.0.0.0' }: { host?: string } = {}) {
  return { ...baseEnv, DATABASE_URL: databaseUrlEnv(service), HOST: z.string().default(host) };
}

/** A Kafka consumer group's id. */
export const groupIdEnv = (fallback: string) => z.string().min(1).default(fallback);

/** Consumer group session: how long a dead instance holds its partitions before they move (Kafka's minimum is 6000). */
export const sessionTimeoutEnv = (fallback = 15_000) => z.coerce.number().int().min(6000).default(fallback);

/**
 * Internal credentials: every service that calls another's /internal API has its own token
 * (INTERNAL_TOKEN, sent in x-glimpse-internal-token), and every service with an /internal API
 * lists the callers it accepts (INTERNAL_TOKENS, `caller=token` or `caller=sha256:<hex>`), so it
 * knows which service is calling and allows it only its own routes.
 */
export const INTERNAL_CALLERS = ['gateway', 'webhooks'] as const;
export type InternalCaller = (typeof INTERNAL_CALLERS)[number];

/** The gateway's development token (the name predates per-caller tokens); refused in production. */
export const DEV_INTERNAL_TOKEN = 'glimpse-dev-internal-token-not-for-production';

/** A caller's development token, derived from its name; production refuses every one of them. */
export function devInternalToken(caller: InternalCaller): string {
  return caller === 'gateway' ? DEV_INTERNAL_TOKEN : `glimpse-dev-internal-token-${caller}-not-for-production`;
}

const sha256Hex = (value: string) => createHash('sha256').update(value).digest('hex');
const DEV_TOKEN_DIGESTS = new Set(INTERNAL_CALLERS.map((c) => sha256Hex(devInternalToken(c))));

/** Whether a token (or its `sha256:` digest) is one of the development tokens. */
export function isDevInternalToken(token: string): boolean {
  return DEV_TOKEN_DIGESTS.has(token.startsWith('sha256:') ? token.slice(7).toLowerCase() : sha256Hex(token));
}

/** A caller's own token, which it sends to every service it calls: a development default that production must replace. */
export function internalTokenEnvFor(caller: InternalCaller) {
  return { INTERNAL_TOKEN: z.string().min(16).default(devInternalToken(caller)) };
}

/** The gateway's token (also what the CLI sends, acting for the gateway). */
export const internalTokenEnv = internalTokenEnvFor('gateway');

/** Arguments for `.refine(...)` on a caller's schema: production must not run on a development token. */
export const internalTokenRequiredInProduction: [(c: { NODE_ENV: string; INTERNAL_TOKEN: string }) => boolean, { message: string; path: string[] }] = [
  (c) => c.NODE_ENV !== 'production' || !isDevInternalToken(c.INTERNAL_TOKEN),
  { message: 'INTERNAL_TOKEN must be set in production', path: ['INTERNAL_TOKEN'] },
];

/** Arguments for `.refine(...)`: production must set `name` to a secret of its own, never the development default. */
export function secretRequiredInProduction<K extends string>(
  name: K,
  devDefault: string,
): [(c: { NODE_ENV: string } & Record<K, string>) => boolean, { message: string; path: string[] }] {
  return [(c) => c.NODE_ENV !== 'production' || c[name] !== devDefault, { message: `${name} must be set in production`, path: [name] }];
}

/** The callers a service accepts: each caller's token as the SHA-256 digest (hex) the service compares against. */
export type InternalTokenDigests = Partial<Record<InternalCaller, string>>;

/**
 * Parses INTERNAL_TOKENS ("gateway=<token>,webhooks=sha256:<hex>"); throws naming the bad entry
 * (never the token). A known caller this service does not accept is checked and left out (so one
 * map may be given to every service); the route table refuses it all the same.
 */
export function parseInternalTokens(value: string, accepted: readonly InternalCaller[]): InternalTokenDigests {
  const digests: InternalTokenDigests = {};
  const known: readonly string[] = INTERNAL_CALLERS;
  for (const entry of value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)) {
    const at = entry.indexOf('=');
    const caller = entry.slice(0, Math.max(at, 0)).trim() as InternalCaller;
    const token = entry.slice(at + 1).trim();
    if (at <= 0 || !known.includes(caller))
      throw new Error(`"${entry.slice(0, Math.max(at, 0)) || '(no name)'}": expected caller=token with a caller among ${INTERNAL_CALLERS.join(', ')}`);
    if (digests[caller]) throw new Error(`${caller} is named twice`);
    let digest: string;
    if (token.startsWith('sha256:')) {
      digest = token.slice(7).toLowerCase();
      if (!/^[0-9a-f]{64}$/.test(digest)) throw new Error(`${caller}: sha256: must be followed by 64 hex digits`);
    } else {
      if (token.length < 16) throw new Error(`${caller}: the token must be at least 16 characters`);
      digest = sha256Hex(token);
    }
    if (Object.values(digests).includes(digest)) throw new Error(`${caller}: two callers cannot share a token (the token names the caller)`);
    digests[caller] = digest;
  }
  const kept = Object.fromEntries(Object.entries(digests).filter(([caller]) => accepted.includes(caller as InternalCaller))) as InternalTokenDigests;
  if (Object.keys(kept).length === 0) throw new Error(`no caller this service accepts (${accepted.join(', ')}) is named`);
  return kept;
}

/**
 * A callee's INTERNAL_TOKENS: the callers it accepts (by default each one's development token,
 * which production refuses, as it refuses INTERNAL_TOKENS unset).
 */
export function internalTokensEnv(accepted: readonly InternalCaller[]) {
  return {
    INTERNAL_TOKENS: z
      .string()
      .default(accepted.map((c) => `${c}=${devInternalToken(c)}`).join(','))
      .transform((value, ctx) => {
        try {
          return parseInternalTokens(value, accepted);
        } catch (err) {
          ctx.addIssue({ code: 'custom', message: (err as Error).message });
          return z.NEVER;
        }
      }),
  };
}

/** Arguments for `.refine(...)` on a callee's schema: production must not accept a development token. */
export const internalTokensRequiredInProduction: [
  (c: { NODE_ENV: string; INTERNAL_TOKENS: InternalTokenDigests }) => boolean,
  { message: string; path: string[] },
] = [
  (c) => c.NODE_ENV !== 'production' || !Object.values(c.INTERNAL_TOKENS).some((d) => d !== undefined && DEV_TOKEN_DIGESTS.has(d)),
  { message: 'INTERNAL_TOKENS must be set in production (caller=token for each caller; the development tokens are refused)', path: ['INTERNAL_TOKENS'] },
];

/** What a service with an /internal API declares besides its own variables. */
export interface InternalServiceOptions {
  /** The callers its /internal API accepts (INTERNAL_TOKENS). */
  callers: readonly InternalCaller[];
  /** The interface it listens on by default (serviceEnv's HOST). */
  host?: string;
  /** Secrets of its own (among its variables) that production must set: each name with its development default. */
  secrets?: Record<string, string>;
}

/**
 * The schema of a service with an /internal API: serviceEnv's variables, its own, and the callers
 * it accepts; production refuses the development tokens of those callers and the development
 * default of each secret named.
 */
export function internalServiceSchema<S extends z.ZodRawShape>(service: DatabaseService, own: S, { callers, host, secrets = {} }: InternalServiceOptions) {
  type Production = (c: never) => boolean;
  const checks: [Production, { message: string; path: string[] }][] = [
    internalTokensRequiredInProduction,
    ...Object.entries(secrets).map(([name, devDefault]) => secretRequiredInProduction(name, devDefault)),
  ];
  let schema = z.object({ ...serviceEnv(service, { host }), ...own, ...internalTokensEnv(callers) });
  for (const [check, issue] of checks) schema = schema.refine((c) => check(c as never), issue);
  return schema;
}
