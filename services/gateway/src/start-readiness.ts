// What /readyz checks for the gateway.
import { postgresProbe } from '@glimpse/db';
import type { OptionalCheck, ReadinessCheck } from '@glimpse/http';

export interface ReadinessDeps {
  producer: { isConnected(): boolean };
  kafkaHealth: { check(): Promise<void> };
  db: Parameters<typeof postgresProbe>[0];
  redis: { ping(): Promise<unknown> };
}

export function gatewayReadinessChecks({ producer, kafkaHealth, db, redis }: ReadinessDeps): Record<string, ReadinessCheck | OptionalCheck> {
  return {
    // POST /events needs Kafka and nothing else: only Kafka makes the gateway unready.
    kafka: async () => {
      if (!producer.isConnected()) throw new Error('producer not connected');
      await kafkaHealth.check();
    },
    // Known credentials are served from the cache while Postgres is down, and lookups have
    // their own service: reported, but no reason to take the gateway out of the load balancer.
    postgres: {
      optional: true,
      check: postgresProbe(db),
    },
    redis: {
      optional: true,
      check: async () => {
        await redis.ping();
      },
    },
  };
}
