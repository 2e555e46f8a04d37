// The playbook service's environment, parsed once at start-up.
import { baseEnv, internalTokenEnv, internalTokenRequiredInProduction, parseConfig, port, z } from '@glimpse/config';

const schema = z
  .object({
  ...baseEnv,
  /** Port of the internal management API (for the gateway) and the health, readiness and metrics endpoints. */
  PLAYBOOK_PORT: port(8082),
  HOST: z.string().default('0.0.0.0'),
  PLAYBOOK_GROUP_ID: z.string().min(1).default('glimpse-playbook'),
  PLAYBOOK_CONCURRENCY: z.coerce.number().int().positive().default(3),
  /** Consumer group session: how long a dead instance holds its partitions before they move (Kafka's minimum is 6000). */
  PLAYBOOK_SESSION_TIMEOUT_MS: z.coerce.number().int().min(6000).default(15_000),
  /** Shared secret the gateway sends on the internal API (/internal/…); requests without it are refused. */
  ...internalTokenEnv,
})
  .refine(...internalTokenRequiredInProduction);

export type PlaybookConfig = z.infer<typeof schema>;

export function loadConfig(env: Record<string, string | undefined> = process.env): PlaybookConfig {
  return parseConfig(schema, env);
}
