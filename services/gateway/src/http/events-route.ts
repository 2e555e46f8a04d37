// POST /events: event token, rate limit, JSON only, 32 KB, then the use case; the accepted event's
// id in X-Event-Id. POST /events/batch: up to 500 events and 512 KB, the rate limit counting items.
import express, { type Request, type RequestHandler, type Response, type Router } from 'express';
import type { Authenticator } from '@glimpse/auth';
import { AppError } from '@glimpse/errors';
import { acceptBatch, parseBatchInput } from '../domain/accept-batch.js';
import { acceptEvent, type AcceptEventDeps } from '../domain/accept-event.js';
import { parseEventInput } from '../domain/event-input.js';
import type { RateLimiter } from '../data/rate-limiter.js';
import { authenticate } from './authenticate.js';
import { jsonBody } from './json-body.js';
import { refusal, setRateLimitHeaders } from './rate-limit.js';

const IDEMPOTENCY_KEY = /^[A-Za-z0-9._:-]{1,128}$/;

export interface EventsRouteOptions extends AcceptEventDeps {
  authenticator: Authenticator;
  /** Per account. */
  rateLimiter: RateLimiter;
  bodyLimitBytes: number;
  batchBodyLimitBytes: number;
  onAccepted(count: number): void;
}

export function eventsRouter(options: EventsRouteOptions): Router {
  const { authenticator, rateLimiter } = options;
  const router = express.Router();

  const take = async (res: Response, count: number) => {
    const d = await rateLimiter.take(res.locals.accountId as string, count);
    setRateLimitHeaders(res, d);
    if (!d.allowed) throw refusal(d, 'too many events for this account; slow down and retry');
  };
  const rateLimit: RequestHandler = async (_req, res, next) => {
    await take(res, 1);
    next();
  };
  const idempotencyKeyOf = (req: Request): string | undefined => {
    const key = req.get('idempotency-key');
    if (key !== undefined && !IDEMPOTENCY_KEY.test(key)) throw new AppError('invalid_request', 'Idempotency-Key must be 1 to 128 letters, digits or . _ : -');
    return key;
  };

  router.post(
    '/events',
    authenticate(authenticator, { kind: 'event_token' }),
    rateLimit,
    ...jsonBody(options.bodyLimitBytes),
    async (req, res) => {
      const input = parseEventInput(req.body);
      const idempotencyKey = idempotencyKeyOf(req);
      const { eventId } = await acceptEvent(options, { accountId: res.locals.accountId as string, input, idempotencyKey });
      options.onAccepted(1);
      res.set('X-Event-Id', eventId).json({ ok: true });
    },
  );
  router.post(
    '/events/batch',
    authenticate(authenticator, { kind: 'event_token' }),
    ...jsonBody(options.batchBodyLimitBytes),
    async (req, res) => {
      const items = parseBatchInput(req.body);
      const idempotencyKey = idempotencyKeyOf(req);
      // The limit counts events, not requests: a batch of 100 spends 100.
      await take(res, items.length);
      const result = await acceptBatch(options, { accountId: res.locals.accountId as string, items, idempotencyKey, itemLimitBytes: options.bodyLimitBytes });
      options.onAccepted(result.accepted);
      res.json(result);
    },
  );
  return router;
}
