// What a batch consumer's service reports on /readyz: Kafka reachable with the consumer running,
// no partition stuck, and the lag per partition as detail. One home for the playbook and visitors
// services' readiness of their consumers.
import type { KafkaHealthCheck } from '../kafka-health.js';
import type { PartitionLag } from './lag-tracker.js';

export interface ObservedConsumer {
  isRunning(): boolean;
  lags(): PartitionLag[];
  stuck(): PartitionLag[];
}

/**
 * `consumer` is read at check time, so the checks can be built before the consumer that they
 * observe (the base app, which owns the registry the consumer's metrics go to, comes first).
 */
export function batchConsumerReadiness(consumer: () => ObservedConsumer, kafkaHealth: KafkaHealthCheck) {
  return {
    checks: {
      kafka: async () => {
        if (!consumer().isRunning()) throw new Error('consumer not running');
        await kafkaHealth.check();
      },
      consumer: async () => {
        const [worst] = consumer()
          .stuck()
          .sort((a, b) => b.lag - a.lag);
        if (worst) throw new Error(`stuck: partition ${worst.partition}, ${worst.lag} behind, no progress for ${Math.round(worst.sinceProgressMs / 1000)} s`);
      },
    },
    readinessDetail: () => ({
      lag: Object.fromEntries(
        consumer()
          .lags()
          .map((l) => [l.partition, l.lag]),
      ),
    }),
  };
}

/**
 * The whole /readyz of a service built on a batch consumer (playbook, visitors): Postgres, Kafka
 * with the consumer running, the accounts consumer, no partition stuck (in that order), and the lag
 * as detail. `postgres` and `accounts` are the service's own checks.
 */
export function batchConsumerServiceReadiness(
  consumer: () => ObservedConsumer,
  kafkaHealth: KafkaHealthCheck,
  { postgres, accounts }: { postgres: () => Promise<void>; accounts: () => Promise<void> },
) {
  const { checks, readinessDetail } = batchConsumerReadiness(consumer, kafkaHealth);
  return { checks: { postgres, kafka: checks.kafka, accounts, consumer: checks.consumer }, readinessDetail };
}
