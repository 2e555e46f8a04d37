// Publishes the identity outbox (account.created / account.deleted) to the accounts topic every
// interval with the gateway's Kafka producer. Every replica runs it; publishAccountEvents lets one
// at a time publish (an advisory lock), the others skip the round. A round drains what is pending in
// batches; a failure is logged (counts and the error, never an account's name) and retried next round.
import type { Registry } from 'prom-client';
import { countUnpublishedAccountEvents, publishAccountEvents, type AccountEventProducer } from '@glimpse/auth';
import type { Db } from '@glimpse/db/identity';
import { metricsIn, type Logger } from '@glimpse/logging';

export interface AccountEventsPublisherOptions {
  db: Db;
  producer: AccountEventProducer & { isConnected(): boolean };
  intervalMs: number;
  logger: Logger;
  registry: Registry;
  /** Rows per batch; a round sends batches until fewer than this are left. */
  batchSize?: number;
}

export interface AccountEventsPublisher {
  /** One round now (tests, and the first round at start). */
  runOnce(): Promise<void>;
  /** Ends the schedule and waits for the round in progress. */
  stop(): Promise<void>;
}

const MAX_BATCHES_PER_ROUND = 50;

export function startAccountEventsPublisher({
  db,
  producer,
  intervalMs,
  logger,
  registry,
  batchSize = 200,
}: AccountEventsPublisherOptions): AccountEventsPublisher {
  const metrics = metricsIn(registry);
  const published = metrics.counter('glimpse_account_events_published_total', 'Account events (outbox rows) this replica published to the accounts topic');
  const failures = metrics.counter('glimpse_account_events_publish_failures_total', 'Rounds of the account events publisher that failed (retried next round)');
  const unpublished = metrics.gauge('glimpse_account_events_unpublished', "Account events waiting in the outbox, as of this replica's last round");

  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let round: Promise<void> | undefined;

  async function publishPending(): Promise<void> {
    if (!producer.isConnected()) return; // the producer reconnects on its own; the rows wait
    for (let i = 0; i < MAX_BATCHES_PER_ROUND && !stopped; i++) {
      const n = await publishAccountEvents(db, producer, { limit: batchSize });
      published.inc(n);
      if (n < batchSize) break;
    }
  }

  function runOnce(): Promise<void> {
    round ??= (async () => {
      try {
        await publishPending();
      } catch (err) {
        failures.inc();
        const published = (err as { published?: number }).published;
        logger.warn({ err: (err as Error).message?.slice(0, 300), published }, 'account events not published; retried next round');
      }
      try {
        unpublished.set(await countUnpublishedAccountEvents(db));
      } catch {
        /* Postgres is down: the publish failure above says so */
      }
    })().finally(() => {
      round = undefined;
    });
    return round;
  }

  function schedule(): void {
    if (stopped) return;
    timer = setTimeout(() => {
      void runOnce().finally(schedule);
    }, intervalMs);
    timer.unref();
  }
  schedule();

  return {
    runOnce,
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await round;
    },
  };
}
