// One delivery attempt of the dispatcher (dispatcher.ts): sent signed to a webhook, or as its Block
// Kit message to a Slack endpoint, then recorded; the answer steers the schedule (a Retry-After, a
// revoked Slack webhook) and a run of failures disables the endpoint.
import { SEGMENT_EVENT_TYPES, type SegmentAlertPayload } from '@glimpse/api';
import type { Db } from '@glimpse/db/webhooks';
import type { Logger, metricsIn } from '@glimpse/logging';
import { recordAttempt, type AttemptResult, type ClaimedDelivery, type FailurePolicy } from '../data/delivery-repository.js';
import { endpointKinds } from '../data/endpoint-repository.js';
import type { SecretBox } from '../domain/secret-box.js';
import { signDelivery } from '../domain/signing.js';
import { slackMessageOf } from '../domain/slack-message.js';
import type { Sender } from './sender.js';
import type { SlackAttempt, SlackSender } from './slack-sender.js';

export interface AttempterOptions {
  db: Db;
  sender: Sender;
  /** Sends a Slack endpoint's messages. */
  slack: SlackSender;
  /** The console's address, linked from Slack messages (WEBHOOKS_CONSOLE_URL). */
  consoleUrl: string;
  /** Opens the endpoints' sealed signing secrets. */
  secrets: SecretBox;
  logger: Logger;
  policy: FailurePolicy;
  metrics: ReturnType<typeof metricsIn>;
}

/** The Slack message of a delivery's payload, or why there is none (an event Slack endpoints are not sent). */
function slackMessageOfPayload(payload: string, consoleUrl: string) {
  const parsed = JSON.parse(payload) as { type?: string };
  if (!(SEGMENT_EVENT_TYPES as readonly (string | undefined)[]).includes(parsed.type)) return null;
  return slackMessageOf(parsed as SegmentAlertPayload, consoleUrl);
}

/** Attempts a claimed delivery and records the attempt. */
export function createAttempter({ db, sender, slack, consoleUrl, secrets, logger, policy, metrics }: AttempterOptions): (d: ClaimedDelivery) => Promise<void> {
  const attempts = metrics.counter('glimpse_webhook_attempts_total', 'Webhook delivery attempts by outcome', ['outcome']);
  const disabled = metrics.counter('glimpse_webhook_endpoints_disabled_total', 'Endpoints disabled after continuous failures');
  const duration = metrics.histogram('glimpse_webhook_attempt_duration_seconds', 'Time of one delivery attempt', [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30]);
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

  return deliver;
}
