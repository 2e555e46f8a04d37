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
        const [worst] = consumer().stuck().sort((a, b) => b.lag - a.lag);
        if (worst) throw new Error(`stuck: partition ${worst.partition}, ${worst.lag} behind, no progress for ${Math.round(worst.sinceProgressMs / 1000)} s`);
      },
    },
    readinessDetail: () => ({ lag: Object.fromEntries(consumer().lags().map((l) => [l.partition, l.lag])) }),
  };
}
