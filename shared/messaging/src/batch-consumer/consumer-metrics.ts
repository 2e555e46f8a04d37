// The batch consumer's metrics, in the service's own registry. The names are the same in every
// service (each has its own process and registry); only the processed counter is the service's.
import { Counter, Gauge, type Histogram, type Registry } from 'prom-client';
import { metricsIn } from '@glimpse/logging';
import type { LagTracker } from './lag-tracker.js';

export type RetryKind = 'outage' | 'split' | 'failure' | 'publish';

export interface ConsumerMetrics {
  retries: Counter<'kind'>;
  batchSize: Histogram<string>;
}

export interface ConsumerMetricsOptions {
  registry: Registry;
  tracker: LagTracker;
  /** The setting that holds stuckAfterMs, named in the stuck gauge's help. */
  stuckSetting?: string;
}

export function createConsumerMetrics({ registry, tracker, stuckSetting = 'stuckAfterMs' }: ConsumerMetricsOptions): ConsumerMetrics {
  const metrics = metricsIn(registry);
  const retries = metrics.counter(
    'glimpse_consumer_retries_total',
    'Failed applies of the consumer: outage (a dependency not answering, retried whole), split (a failing chunk bisected), failure (one message retried), publish (effects or dead letters not yet sent)',
    ['kind'],
  );
  const batchSize = metrics.histogram('glimpse_consumer_batch_size', 'Messages per applied chunk', [1, 10, 50, 100, 250, 500, 1000, 2500]);
  lagGauges(registry, tracker, stuckSetting);
  return { retries, batchSize };
}

function lagGauges(registry: Registry, tracker: LagTracker, stuckSetting: string): void {
  new Gauge({
    name: 'glimpse_consumer_lag',
    help: 'Messages behind on each partition this replica holds (end offset − next offset to apply)',
    labelNames: ['partition'] as const,
    registers: [registry],
    collect() {
      this.reset();
      for (const l of tracker.lags()) this.set({ partition: String(l.partition) }, l.lag);
    },
  });
  new Gauge({
    name: 'glimpse_consumer_seconds_since_progress',
    help: 'Seconds since the partition last moved (or was assigned)',
    labelNames: ['partition'] as const,
    registers: [registry],
    collect() {
      this.reset();
      for (const l of tracker.lags()) this.set({ partition: String(l.partition) }, Math.round(l.sinceProgressMs / 100) / 10);
    },
  });
  new Gauge({
    name: 'glimpse_consumer_stuck_partitions',
    help: `Partitions behind with no progress for longer than ${stuckSetting} (the replica is unready while > 0)`,
    registers: [registry],
    collect() {
      this.set(tracker.stuck().length);
    },
  });
}

/** The service's counter of handled messages by outcome (the skeleton adds dead_letter). */
export function createProcessedCounter(registry: Registry, name: string, help: string): Counter<'outcome'> {
  return metricsIn(registry).counter(name, help, ['outcome']);
}
