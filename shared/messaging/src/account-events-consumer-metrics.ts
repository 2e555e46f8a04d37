// The accounts consumer's counters, registered in the service's registry.
import type { Registry } from 'prom-client';
import { metricsIn } from '@glimpse/logging';

export function createAccountEventsMetrics(registry: Registry) {
  const metrics = metricsIn(registry);
  return {
    applied: metrics.counter('glimpse_account_events_applied_total', 'Account events applied, by type', ['type']),
    invalid: metrics.counter('glimpse_account_events_invalid_total', 'Messages on the accounts topic that are no account event (skipped)'),
    failures: metrics.counter('glimpse_account_events_failures_total', 'Failed attempts to apply an account event (retried)'),
    restarts: metrics.counter(
      'glimpse_account_events_consumer_restarts_total',
      'Times the accounts consumer was started again after Kafka was unreachable or the consumer crashed',
    ),
  };
}

export type AccountEventsMetrics = ReturnType<typeof createAccountEventsMetrics>;
