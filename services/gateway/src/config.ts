// The gateway's environment, parsed once at start-up.
import { baseEnv, internalTokenEnv, internalTokenRequiredInProduction, parseConfig, port, z } from '@glimpse/config';

const schema = z
  .object({
  ...baseEnv,
  PORT: port(8080),
  HOST: z.string().default('0.0.0.0'),
  /** Requests per second per account on POST /events (per account, across all gateways). */
  EVENTS_RATE_LIMIT_PER_SECOND: z.coerce.number().int().positive().default(2000),
  EVENTS_BODY_LIMIT_BYTES: z.coerce.number().int().positive().default(32 * 1024),
  /** Micro-batching of Kafka sends: wait at most this long, or until this many are queued. */
  KAFKA_LINGER_MS: z.coerce.number().int().min(0).default(2),
  KAFKA_MAX_BATCH: z.coerce.number().int().positive().default(500),
  KAFKA_SEND_TIMEOUT_MS: z.coerce.number().int().positive().default(5000),
  /** How long credential lookups are cached; revocation takes effect within this. */
  AUTH_CACHE_TTL_MS: z.coerce.number().int().min(0).default(2000),
  /** The internal enrichment service (lookups, usage), and the secret the internal services expect. */
  ENRICHMENT_URL: z.string().url().default('http://127.0.0.1:8081'),
  ...internalTokenEnv,
  LOOKUP_TIMEOUT_MS: z.coerce.number().int().positive().default(5000),
  /** The internal playbook service: the management API's playbooks, enrollments and catalog. */
  PLAYBOOK_URL: z.string().url().default('http://127.0.0.1:8082'),
})
  .refine(...internalTokenRequiredInProduction);

export type GatewayConfig = z.infer<typeof schema>;

export function loadConfig(env: Record<string, string | undefined> = process.env): GatewayConfig {
  return parseConfig(schema, env);
}
