// Guards a service's internal HTTP API: only the gateway may call it, proving it with the shared
// internal token, and it names the authenticated account in a header (res.locals.accountId).
import { timingSafeEqual } from 'node:crypto';
import type { RequestHandler } from 'express';
import { AppError } from '@glimpse/errors';
import { isUuid } from '@glimpse/validation';

export const INTERNAL_HEADERS = { token: 'x-glimpse-internal-token', account: 'x-glimpse-account-id' } as const;


function sameSecret(given: string | undefined, expected: string): boolean {
  if (!given) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

export function fromGateway(internalToken: string): RequestHandler {
  return (req, res, next) => {
    if (!sameSecret(req.get(INTERNAL_HEADERS.token), internalToken)) throw new AppError('unauthorized', 'internal endpoint: callers must be the gateway');
    const accountId = req.get(INTERNAL_HEADERS.account);
    if (!accountId || !isUuid(accountId)) throw new AppError('invalid_request', `missing or invalid ${INTERNAL_HEADERS.account}`);
    res.locals.accountId = accountId;
    next();
  };
}
