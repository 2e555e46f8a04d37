// RateLimit-Limit, -Remaining and -Reset (the IETF httpapi draft's names) on every answer of a
// limited path, errors included: until the caller is authenticated they describe its address's
// credential-check budget, then its API key's own limit. A refusal is 429 with Retry-After.
import type { RequestHandler, Response } from 'express';
import { AppError } from '@glimpse/errors';
import type { AddressLimiter } from '../data/address-limiter.js';
import type { RateDecision, RateLimiter } from '../data/rate-limiter.js';

export function setRateLimitHeaders(res: Response, d: RateDecision): void {
  res.set({ 'RateLimit-Limit': String(d.limit), 'RateLimit-Remaining': String(d.remaining), 'RateLimit-Reset': String(d.resetSeconds) });
}

export function refusal(d: RateDecision, message: string): AppError {
  return new AppError('rate_limited', message, { headers: { 'Retry-After': String(d.resetSeconds) } });
}

/** First on a limited path: the address's budget, so even an answer before authentication carries the headers. */
export function addressRateHeaders(limiter: AddressLimiter): RequestHandler {
  return (req, res, next) => {
    setRateLimitHeaders(res, limiter.peek(req.ip));
    next();
  };
}

/** After authentication: the credential's own limit. */
export function perCredentialLimit(limiter: RateLimiter, what: string): RequestHandler {
  return async (_req, res, next) => {
    const d = await limiter.take(res.locals.credentialId as string);
    setRateLimitHeaders(res, d);
    if (!d.allowed) throw refusal(d, `too many ${what} requests for this API key; slow down and retry`);
    next();
  };
}
