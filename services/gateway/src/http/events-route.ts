// POST /events: event token, rate limit, JSON only, 32 KB, then the use case; the accepted event's
// id in X-Event-Id (an account without the workflows add-on: 403 addon_required, from the cached
// credential). POST /events/batch: up to 500 events and 512 KB, the rate limit counting items.
//
// The hottest paths of the gateway, so each is one handler that takes the steps in turn (the same
// steps, in the same order, as the middleware of the other routes), and answers with bytes it
// writes itself: an {"ok":true} needs neither express's content-type negotiation nor an ETag (a
// POST answer is never revalidated).
import express, { type Response, type Router } from 'express';
import { workflowsAddonRequired, type Authenticator } from '@glimpse/auth';
import { acceptBatch, parseBatchInput } from '../domain/accept-batch.js';
import { acceptEvent, type AcceptEventDeps } from '../domain/accept-event.js';
import { parseEventInput } from '../domain/event-input.js';
import type { RateLimiter } from '../data/rate-limiter.js';
import { authenticateRequest } from './authenticate.js';
import { idempotencyKeyOf } from './idempotency-key.js';
import { jsonBodyReader } from './json-body.js';
import { refusal, setRateLimitHeaders } from './rate-limit.js';

const EVENT_TOKEN = { kind: 'event_token' } as const;

/** The answer to an accepted event, serialised once. */
const ACCEPTED = JSON.stringify({ ok: true });

export interface EventsRouteOptions extends AcceptEventDeps {
  authenticator: Authenticator;
  /** Per account. */
  rateLimiter: RateLimiter;
  bodyLimitBytes: number;
  batchBodyLimitBytes: number;
  onAccepted(count: number): void;
}

/**
 * A 200 with a JSON body, as res.json would send it (without the ETag). Given as a string, Node
 * writes it in one piece with the head.
 */
function answerJson(res: Response, body: string): void {
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', Buffer.byteLength(body));
  res.end(body);
}

export function eventsRouter(options: EventsRouteOptions): Router {
  const { authenticator, rateLimiter } = options;
  const router = express.Router();
  const readEvent = jsonBodyReader(options.bodyLimitBytes);
  const readBatch = jsonBodyReader(options.batchBodyLimitBytes);

  const take = async (res: Response, accountId: string, count: number) => {
    const d = await rateLimiter.take(accountId, count);
    setRateLimitHeaders(res, d);
    if (!d.allowed) throw refusal(d, 'too many events for this account; slow down and retry');
  };

  router.post('/events', async (req, res) => {
    const { accountId, workflows } = await authenticateRequest(authenticator, EVENT_TOKEN, req, res);
    if (!workflows) throw workflowsAddonRequired();
    await take(res, accountId, 1);
    const input = parseEventInput(await readEvent(req, res));
    const idempotencyKey = idempotencyKeyOf(req);
    const { eventId } = await acceptEvent(options, { accountId, input, idempotencyKey });
    options.onAccepted(1);
    res.setHeader('X-Event-Id', eventId);
    answerJson(res, ACCEPTED);
  });
  router.post('/events/batch', async (req, res) => {
    const { accountId, workflows } = await authenticateRequest(authenticator, EVENT_TOKEN, req, res);
    if (!workflows) throw workflowsAddonRequired();
    const items = parseBatchInput(await readBatch(req, res));
    const idempotencyKey = idempotencyKeyOf(req);
    // The limit counts events, not requests: a batch of 100 spends 100.
    await take(res, accountId, items.length);
    const result = await acceptBatch(options, { accountId, items, idempotencyKey, itemLimitBytes: options.bodyLimitBytes });
    options.onAccepted(result.accepted);
    answerJson(res, JSON.stringify(result));
  });
  return router;
}
