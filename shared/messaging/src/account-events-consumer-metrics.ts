// The accounts consumer's counters, registered in the service's registry.
import { Counter, type Registry } from 'prom-client';

export function createAccountEventsMetrics(registry: Registry) {
  return {
    applied: new Counter({
      name: 'glimpse_account_events_applied_total',
      help: 'Account events applied, by type',
      labelNames: ['type'] as const,
      registers: [registry],
    }),
    invalid: new Counter({
      name: 'glimpse_account_events_invalid_total',
      help: 'Messages on the accounts topic that are no account event (skipped)',
      registers: [registry],
    }),
    failures: new Counter({
      name: 'glimpse_account_events_failures_total',
      help: 'Failed attempts to apply an account event (retried)',
      registers: [registry],
    }),
    restarts: new Counter({
      name: 'glimpse_account_events_consumer_restarts_total',
      help: 'Times the accounts consumer was started again after Kafka was unreachable or the consumer crashed',
      registers: [registry],
    }),
  };
}

export type AccountEventsMetrics = ReturnType<typeof createAccountEventsMetrics>;
