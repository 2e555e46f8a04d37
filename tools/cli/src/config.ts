// The CLI's environment: where the database is, and Kafka (account create/delete publish the account's event).
import { baseEnv, parseConfig, z } from '@glimpse/config';

const schema = z.object({
  DATABASE_URL: baseEnv.DATABASE_URL,
  KAFKA_BROKERS: baseEnv.KAFKA_BROKERS,
  KAFKA_SSL: baseEnv.KAFKA_SSL,
  KAFKA_SASL_MECHANISM: baseEnv.KAFKA_SASL_MECHANISM,
  KAFKA_SASL_USERNAME: baseEnv.KAFKA_SASL_USERNAME,
  KAFKA_SASL_PASSWORD: baseEnv.KAFKA_SASL_PASSWORD,
  /** Region for phone numbers in imports written without a country code. */
  DEFAULT_PHONE_REGION: z.string().regex(/^[A-Z]{2}$/).default('US'),
});

export type CliConfig = z.infer<typeof schema>;

export function loadConfig(env: Record<string, string | undefined> = process.env): CliConfig {
  return parseConfig(schema, env);
}
