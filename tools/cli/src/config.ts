// The CLI's environment: only where the database is.
import { baseEnv, parseConfig, z } from '@glimpse/config';

const schema = z.object({
  DATABASE_URL: baseEnv.DATABASE_URL,
  /** Region for phone numbers in imports written without a country code. */
  DEFAULT_PHONE_REGION: z.string().regex(/^[A-Z]{2}$/).default('US'),
});

export type CliConfig = z.infer<typeof schema>;

export function loadConfig(env: Record<string, string | undefined> = process.env): CliConfig {
  return parseConfig(schema, env);
}
