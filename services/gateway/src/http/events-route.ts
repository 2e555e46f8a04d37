// POST /events: event token, rate limit, JSON only, 32 KB, then the use case.
import express, { type RequestHandler, type Router } from 'express';
import type { Authenticator } from '@glimpse/auth';
import { AppError } from '@glimpse/errors';
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
  onAccepted(): void;
}

export function eventsRouter(options: EventsRouteOptions): Router {
  const { authenticator, rateLimiter } = options;
  const router = express.Router();

  const rateLimit: RequestHandler = async (_req, res, next) => {
    const d = await rateLimiter.take(res.locals.accountId as string);
    setRateLimitHeaders(res, d);
    if (!d.allowed) throw refusal(d, 'too many events for this account; slow down and retry');
    next();
  };

  router.post(
    '/events',
    authenticate(authenticator, { kind: 'event_token' }),
    rateLimit,
    ...jsonBody(options.bodyLimitBytes),
    async (req, res) => {
      const input = parseEventInput(req.body);
      const idempotencyKey = req.get('idempotency-key');
      if (idempotencyKey !== undefined && !IDEMPOTENCY_KEY.test(idempotencyKey)) {
        throw new AppError('invalid_request', 'Idempotency-Key must be 1 to 128 letters, digits or . _ : -');
      }
      await acceptEvent(options, { accountId: res.locals.accountId as string, input, idempotencyKey });
      options.onAccepted();
      res.json({ ok: true });
    },
  );
  return router;
}
