// The playbook service's environment, parsed once at start-up.
import { baseEnv, parseConfig, port, z } from '@glimpse/config';

const schema = z.object({
  ...baseEnv,
  /** Port of the health, readiness and metrics endpoints. */
  PLAYBOOK_PORT: port(8082),
  HOST: z.string().default('0.0.0.0'),
  PLAYBOOK_GROUP_ID: z.string().min(1).default('glimpse-playbook'),
  PLAYBOOK_CONCURRENCY: z.coerce.number().int().positive().default(3),
});

export type PlaybookConfig = z.infer<typeof schema>;

export function loadConfig(env: Record<string, string | undefined> = process.env): PlaybookConfig {
  return parseConfig(schema, env);
}
