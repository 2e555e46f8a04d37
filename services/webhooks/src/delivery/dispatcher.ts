// The delivery loop: a pool of WEBHOOKS_CONCURRENCY slots. Whenever slots are free (a delivery
// finished, new ones were scheduled, or every poll interval) it claims that many due deliveries
// from the schedule in Postgres, fairly across accounts and under the per-account and per-endpoint
// in-flight caps (data/claims.ts), sends each signed and records its attempt. Each delivery holds
// its slot only for its own attempt: one that hangs until WEBHOOKS_TIMEOUT_MS never keeps another
// from starting in a free slot (the loop used to wait for a whole batch). Retries are rows with a
// later next_attempt_at, so they survive restarts and never hold up the Kafka consumer.
//
// A Slack endpoint's delivery holds the same payload as a webhook's; it is sent as the Block Kit
// message made from it (slack-message.ts) with Slack's client (slack-sender.ts), unsigned. Its
// answers steer the schedule: a 429 is not tried again before its Retry-After, a 404 or 410 (the
// incoming webhook was removed) disables that endpoint as "revoked".
import type { Gauge, Registry } from 'prom-client';
import { metricsIn } from '@glimpse/logging';
import { purgeOldDeliveries, type ClaimedDelivery } from '../data/delivery-repository.js';
import { claimDue } from '../data/claims.js';
import { createAttempter, type AttempterOptions } from './attempt.js';

export interface DispatcherOptions extends Omit<AttempterOptions, 'metrics'> {
  registry: Registry;
  /** Deliveries in flight at once in this instance. */
  concurrency: number;
  /** In flight at once for one account, and to one endpoint, across instances. */
  accountConcurrency: number;
  endpointConcurrency: number;
  pollIntervalMs: number;
  /** A claimed delivery is due again after this if its attempt never got recorded. */
  leaseMs: number;
  retentionMs: number;
}

export interface Dispatcher {
  start(): void;
  stop(): Promise<void>;
  /** Claims now rather than at the next interval (new deliveries were scheduled). */
  poke(): void;
  /** True while the loop runs and its last claim reached Postgres. */
  healthy(): boolean;
}

const PURGE_EVERY_MS = 10 * 60 * 1000;

/** Deletes deliveries older than the retention, at most once every PURGE_EVERY_MS (the claims call it). */
function createPurge({ db, logger, retentionMs }: Pick<DispatcherOptions, 'db' | 'logger' | 'retentionMs'>): () => Promise<void> {
  let lastPurge = 0;
  return async () => {
    if (Date.now() - lastPurge <= PURGE_EVERY_MS) return;
    lastPurge = Date.now();
    const purged = await purgeOldDeliveries(db, retentionMs);
    if (purged > 0) logger.info({ purged }, 'old webhook deliveries deleted');
  };
}

/** The attempts in flight: each holds its slot until it is recorded (or its failure logged), then frees it and calls `freed`. */
function createSlots(deliver: (d: ClaimedDelivery) => Promise<void>, busy: Gauge, logger: DispatcherOptions['logger'], freed: () => void) {
  const inFlight = new Set<Promise<void>>();
  return {
    size: () => inFlight.size,
    launch(d: ClaimedDelivery): void {
      // A failure to record one leaves it leased: it is tried again when the lease ends.
      const attempt: Promise<void> = deliver(d)
        .catch((err: Error) => logger.warn({ deliveryId: d.id, err: err.message }, 'webhook attempt not recorded; retried after its lease'))
        .finally(() => {
          inFlight.delete(attempt);
          busy.set(inFlight.size);
          freed();
        });
      inFlight.add(attempt);
      busy.set(inFlight.size);
    },
    /** Waits for every attempt in flight. */
    settled: () => Promise.all([...inFlight]),
  };
}

export function createDispatcher(options: DispatcherOptions): Dispatcher {
  const { db, logger, concurrency, accountConcurrency, endpointConcurrency, pollIntervalMs, leaseMs } = options;
  const metrics = metricsIn(options.registry);
  const deliver = createAttempter({ ...options, metrics });
  const busy = metrics.gauge('glimpse_webhook_deliveries_in_flight', 'Deliveries being attempted by this instance (at most WEBHOOKS_CONCURRENCY)');
  const purge = createPurge(options);
  let running = false;
  let timer: NodeJS.Timeout | undefined;
  let claiming: Promise<void> | undefined;
  let claimAgain = false;
  const slots = createSlots(deliver, busy, logger, () => fill());
  let lastPollOk = true;

  /** Claims for the free slots, again while claims come back full; one claim at a time (a request meanwhile runs one more round). */
  async function claimRounds(): Promise<void> {
    do {
      claimAgain = false;
      try {
        await purge();
        while (running && slots.size() < concurrency) {
          const free = concurrency - slots.size();
          const claimed = await claimDue(db, { limit: free, leaseMs, accountCap: accountConcurrency, endpointCap: endpointConcurrency });
          for (const d of claimed) slots.launch(d);
          if (claimed.length < free) break;
        }
        lastPollOk = true;
      } catch (err) {
        if (lastPollOk) logger.warn({ err: (err as Error).message }, 'webhook schedule unreachable; retrying');
        lastPollOk = false;
      }
    } while (claimAgain && running && slots.size() < concurrency);
  }

  function fill(): void {
    if (!running) return;
    if (claiming) {
      claimAgain = true;
      return;
    }
    claiming = claimRounds().finally(() => {
      claiming = undefined;
    });
  }

  return {
    start() {
      if (running) return;
      running = true;
      timer = setInterval(fill, pollIntervalMs);
      fill();
    },
    async stop() {
      running = false;
      clearInterval(timer);
      await claiming;
      await slots.settled();
    },
    poke: () => fill(),
    healthy: () => running && lastPollOk,
  };
}
