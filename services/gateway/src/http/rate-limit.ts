// RateLimit-Limit, -Remaining and -Reset (the IETF httpapi draft's names) on every answer of a
// limited path, errors included: until the caller is authenticated they describe its address's
// credential-check budget, then its API key's own limit or its account's, whichever leaves less.
// A refusal is 429 with Retry-After.
import type { RequestHandler, Response } from 'express';
import { AppError } from '@glimpse/errors';
import type { AddressLimiter } from '../data/address-limiter.js';
import type { RateDecision, RateLimiter } from '../data/rate-limiter.js';

export function setRateLimitHeaders(res: Response, d: RateDecision): void {
  res.setHeader('RateLimit-Limit', String(d.limit));
  res.setHeader('RateLimit-Remaining', String(d.remaining));
  res.setHeader('RateLimit-Reset', String(d.resetSeconds));
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

/**
 * After authentication: the API key's own limit, then (when given) its account's, which every key of
 * the account shares, so creating more keys does not multiply an account's rate.
 */
export function perCredentialLimit(limiter: RateLimiter, what: string, perAccount?: RateLimiter): RequestHandler {
  return async (_req, res, next) => {
    await takeCredentialAndAccount(res, { perKey: limiter, perAccount }, what);
    next();
  };
}

/**
 * Counts `count` requests against the key's limit and, only when the key has room, against its
 * account's; the headers describe whichever leaves less. A refusal names the limit that refused.
 */
export async function takeCredentialAndAccount(
  res: Response,
  { perKey, perAccount }: { perKey: RateLimiter; perAccount?: RateLimiter },
  what: string,
  count = 1,
): Promise<void> {
  const byKey = await perKey.take(res.locals.credentialId as string, count);
  if (!byKey.allowed || perAccount === undefined) {
    setRateLimitHeaders(res, byKey);
    if (!byKey.allowed) throw refusal(byKey, `too many ${what} requests for this API key; slow down and retry`);
    return;
  }
  const byAccount = await perAccount.take(res.locals.accountId as string, count);
  setRateLimitHeaders(res, !byAccount.allowed || byAccount.remaining < byKey.remaining ? byAccount : byKey);
  if (!byAccount.allowed) throw refusal(byAccount, `too many ${what} requests for this account (all its API keys together); slow down and retry`);
}
