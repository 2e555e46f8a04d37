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
import type { Registry } from 'prom-client';
import { SEGMENT_EVENT_TYPES, type SegmentAlertPayload } from '@glimpse/api';
import type { Db } from '@glimpse/db/webhooks';
import { metricsIn, type Logger } from '@glimpse/logging';
import { purgeOldDeliveries, recordAttempt, type AttemptResult, type ClaimedDelivery, type FailurePolicy } from '../data/delivery-repository.js';
import { claimDue } from '../data/claims.js';
import { endpointKinds } from '../data/endpoint-repository.js';
import { signDelivery } from '../domain/signing.js';
import type { SecretBox } from '../domain/secret-box.js';
import { slackMessageOf } from '../domain/slack-message.js';
import type { Sender } from './sender.js';
import type { SlackAttempt, SlackSender } from './slack-sender.js';

export interface DispatcherOptions {
  db: Db;
  sender: Sender;
  /** Sends a Slack endpoint's messages. */
  slack: SlackSender;
  /** The console's address, linked from Slack messages (WEBHOOKS_CONSOLE_URL). */
  consoleUrl: string;
  /** Opens the endpoints' sealed signing secrets. */
  secrets: SecretBox;
  logger: Logger;
  registry: Registry;
  /** Deliveries in flight at once in this instance. */
  concurrency: number;
  /** In flight at once for one account, and to one endpoint, across instances. */
  accountConcurrency: number;
  endpointConcurrency: number;
  pollIntervalMs: number;
  /** A claimed delivery is due again after this if its attempt never got recorded. */
  leaseMs: number;
  policy: FailurePolicy;
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

/** The Slack message of a delivery's payload, or why there is none (an event Slack endpoints are not sent). */
function slackMessageOfPayload(payload: string, consoleUrl: string) {
  const parsed = JSON.parse(payload) as { type?: string };
  if (!(SEGMENT_EVENT_TYPES as readonly (string | undefined)[]).includes(parsed.type)) return null;
  return slackMessageOf(parsed as SegmentAlertPayload, consoleUrl);
}

export function createDispatcher({
  db,
  sender,
  slack,
  consoleUrl,
  secrets,
  logger,
  registry,
  concurrency,
  accountConcurrency,
  endpointConcurrency,
  pollIntervalMs,
  leaseMs,
  policy,
  retentionMs,
}: DispatcherOptions): Dispatcher {
  const metrics = metricsIn(registry);
  const attempts = metrics.counter('glimpse_webhook_attempts_total', 'Webhook delivery attempts by outcome', ['outcome']);
  const disabled = metrics.counter('glimpse_webhook_endpoints_disabled_total', 'Endpoints disabled after continuous failures');
  const duration = metrics.histogram('glimpse_webhook_attempt_duration_seconds', 'Time of one delivery attempt', [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30]);
  const busy = metrics.gauge('glimpse_webhook_deliveries_in_flight', 'Deliveries being attempted by this instance (at most WEBHOOKS_CONCURRENCY)');
  let running = false;
  let timer: NodeJS.Timeout | undefined;
  let claiming: Promise<void> | undefined;
  let claimAgain = false;
  const inFlight = new Set<Promise<void>>();
  let lastPollOk = true;
  let lastPurge = 0;
  // An endpoint's kind never changes: learnt once per endpoint (the claim's statement does not
  // answer it), so a claim costs no more round trips.
  const kinds = new Map<string, string>();

  async function kindOf(endpointId: string): Promise<string> {
    const known = kinds.get(endpointId);
    if (known) return known;
    const found = await endpointKinds(db, [endpointId]);
    if (kinds.size > 100_000) kinds.clear();
    for (const [id, kind] of found) kinds.set(id, kind);
    return found.get(endpointId) ?? 'webhook';
  }

  async function sendWebhook(d: ClaimedDelivery): Promise<AttemptResult> {
    // A secret that does not open (sealed under a key this instance lacks) throws here: nothing is
    // sent unsigned, and the delivery is due again after its lease.
    const headers = signDelivery(
      d.sealedSecrets.map((s) => secrets.open(d.endpointId, s)),
      d.effectId,
      new Date(),
      d.payload,
    );
    return sender.send({ url: d.url, headers: { ...headers }, body: d.payload });
  }

  async function sendSlack(d: ClaimedDelivery): Promise<SlackAttempt> {
    const message = slackMessageOfPayload(d.payload, consoleUrl);
    if (!message) return { at: new Date(), durationMs: 0, responseStatus: null, error: 'not an event a Slack endpoint is sent', succeeded: false };
    return slack.send({ url: d.url, message });
  }

  async function deliver(d: ClaimedDelivery): Promise<void> {
    const result: SlackAttempt = (await kindOf(d.endpointId)) === 'slack' ? await sendSlack(d) : await sendWebhook(d);
    duration.observe(result.durationMs / 1000);
    const hints = {
      ...(result.retryAfterMs !== undefined ? { notBefore: new Date(result.at.getTime() + result.durationMs + result.retryAfterMs) } : {}),
      ...(result.revoked ? { revoked: true } : {}),
    };
    const outcome = await recordAttempt(db, d, result, policy, hints);
    attempts.inc({ outcome: outcome.delivery });
    if (outcome.endpointDisabled) {
      disabled.inc();
      // The endpoint's id only: a Slack URL is a secret.
      if (outcome.revoked) logger.warn({ endpointId: d.endpointId }, 'Slack endpoint disabled: its incoming webhook was removed (404 or 410)');
      else logger.warn({ endpointId: d.endpointId }, 'webhook endpoint disabled after continuous failures');
    }
    if (!result.succeeded)
      logger.debug(
        { deliveryId: d.id, endpointId: d.endpointId, status: result.responseStatus, error: result.error, next: outcome.delivery },
        'webhook attempt failed',
      );
  }

  function launch(d: ClaimedDelivery): void {
    // A failure to record one leaves it leased: it is tried again when the lease ends.
    const attempt: Promise<void> = deliver(d)
      .catch((err: Error) => logger.warn({ deliveryId: d.id, err: err.message }, 'webhook attempt not recorded; retried after its lease'))
      .finally(() => {
        inFlight.delete(attempt);
        busy.set(inFlight.size);
        fill();
      });
    inFlight.add(attempt);
    busy.set(inFlight.size);
  }

  /** Claims for the free slots, again while claims come back full; one claim at a time (a request meanwhile runs one more round). */
  async function claimRounds(): Promise<void> {
    do {
      claimAgain = false;
      try {
        if (Date.now() - lastPurge > PURGE_EVERY_MS) {
          lastPurge = Date.now();
          const purged = await purgeOldDeliveries(db, retentionMs);
          if (purged > 0) logger.info({ purged }, 'old webhook deliveries deleted');
        }
        while (running && inFlight.size < concurrency) {
          const free = concurrency - inFlight.size;
          const claimed = await claimDue(db, { limit: free, leaseMs, accountCap: accountConcurrency, endpointCap: endpointConcurrency });
          for (const d of claimed) launch(d);
          if (claimed.length < free) break;
        }
        lastPollOk = true;
      } catch (err) {
        if (lastPollOk) logger.warn({ err: (err as Error).message }, 'webhook schedule unreachable; retrying');
        lastPollOk = false;
      }
    } while (claimAgain && running && inFlight.size < concurrency);
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
      await Promise.all([...inFlight]);
    },
    poke: () => fill(),
    healthy: () => running && lastPollOk,
  };
}
