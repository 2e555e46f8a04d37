// The CLI's environment: only where the database is.
import { baseEnv, parseConfig, z } from '@glimpse/config';

const schema = z.object({ DATABASE_URL: baseEnv.DATABASE_URL });

export type CliConfig = z.infer<typeof schema>;

export function loadConfig(env: Record<string, string | undefined> = process.env): CliConfig {
  return parseConfig(schema, env);
}
