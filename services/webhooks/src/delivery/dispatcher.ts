// The delivery loop: claims due deliveries from the schedule in Postgres, sends them signed, and
// records each attempt. Retries are rows with a later next_attempt_at, so they survive restarts
// and never hold up the Kafka consumer. Polls again at once while it finds a full batch.
import { Counter, Histogram, type Registry } from 'prom-client';
import type { Db } from '@glimpse/db';
import type { Logger } from '@glimpse/logging';
import { claimDue, purgeOldDeliveries, recordAttempt, type ClaimedDelivery, type FailurePolicy } from '../data/delivery-repository.js';
import { signDelivery } from '../domain/signing.js';
import type { SecretBox } from '../domain/secret-box.js';
import type { Sender } from './sender.js';

export interface DispatcherOptions {
  db: Db;
  sender: Sender;
  /** Opens the endpoints' sealed signing secrets. */
  secrets: SecretBox;
  logger: Logger;
  registry: Registry;
  concurrency: number;
  pollIntervalMs: number;
  /** A claimed delivery is due again after this if its attempt never got recorded. */
  leaseMs: number;
  policy: FailurePolicy;
  retentionMs: number;
}

export interface Dispatcher {
  start(): void;
  stop(): Promise<void>;
  /** Polls now rather than at the next interval (new deliveries were scheduled). */
  poke(): void;
  /** True while the loop runs and its last poll reached Postgres. */
  healthy(): boolean;
}

const PURGE_EVERY_MS = 10 * 60 * 1000;

export function createDispatcher({ db, sender, secrets, logger, registry, concurrency, pollIntervalMs, leaseMs, policy, retentionMs }: DispatcherOptions): Dispatcher {
  const attempts = new Counter({ name: 'glimpse_webhook_attempts_total', help: 'Webhook delivery attempts by outcome', labelNames: ['outcome'] as const, registers: [registry] });
  const disabled = new Counter({ name: 'glimpse_webhook_endpoints_disabled_total', help: 'Endpoints disabled after continuous failures', registers: [registry] });
  const duration = new Histogram({ name: 'glimpse_webhook_attempt_duration_seconds', help: 'Time of one delivery attempt', buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30], registers: [registry] });
  let running = false;
  let loop: Promise<void> | undefined;
  let wake: (() => void) | undefined;
  let lastPollOk = true;
  let lastPurge = 0;

  async function deliver(d: ClaimedDelivery): Promise<void> {
    // A secret that does not open (sealed under a key this instance lacks) throws here: nothing is
    // sent unsigned, and the delivery is due again after its lease.
    const headers = signDelivery(d.sealedSecrets.map((s) => secrets.open(d.endpointId, s)), d.effectId, new Date(), d.payload);
    const result = await sender.send({ url: d.url, headers: { ...headers }, body: d.payload });
    duration.observe(result.durationMs / 1000);
    const outcome = await recordAttempt(db, d, result, policy);
    attempts.inc({ outcome: outcome.delivery });
    if (outcome.endpointDisabled) {
      disabled.inc();
      logger.warn({ endpointId: d.endpointId }, 'webhook endpoint disabled after continuous failures');
    }
    if (!result.succeeded) logger.debug({ deliveryId: d.id, endpointId: d.endpointId, status: result.responseStatus, error: result.error, next: outcome.delivery }, 'webhook attempt failed');
  }

  async function pollOnce(): Promise<number> {
    if (Date.now() - lastPurge > PURGE_EVERY_MS) {
      lastPurge = Date.now();
      const purged = await purgeOldDeliveries(db, retentionMs);
      if (purged > 0) logger.info({ purged }, 'old webhook deliveries deleted');
    }
    const claimed = await claimDue(db, concurrency, leaseMs);
    // A failure to record one leaves it leased: it is tried again when the lease ends.
    await Promise.all(claimed.map((d) => deliver(d).catch((err: Error) => logger.warn({ deliveryId: d.id, err: err.message }, 'webhook attempt not recorded; retried after its lease'))));
    return claimed.length;
  }

  async function run(): Promise<void> {
    while (running) {
      let claimed = 0;
      try {
        claimed = await pollOnce();
        lastPollOk = true;
      } catch (err) {
        if (lastPollOk) logger.warn({ err: (err as Error).message }, 'webhook schedule unreachable; retrying');
        lastPollOk = false;
      }
      if (claimed >= concurrency || !running) continue;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, pollIntervalMs);
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      wake = undefined;
    }
  }

  return {
    start() {
      if (running) return;
      running = true;
      loop = run();
    },
    async stop() {
      running = false;
      wake?.();
      await loop;
    },
    poke: () => wake?.(),
    healthy: () => running && lastPollOk,
  };
}
