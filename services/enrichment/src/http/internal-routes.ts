// The enrichment service's HTTP surface. It is internal: only the gateway may call it, proving
// it with the shared internal token, and it names the authenticated account in a header.
import { timingSafeEqual } from 'node:crypto';
import express, { type RequestHandler, type Router } from 'express';
import { AppError } from '@glimpse/errors';
import { enrichPerson, visitorDetails, type LookupDeps } from '../domain/lookups.js';

export const INTERNAL_HEADERS = { token: 'x-glimpse-internal-token', account: 'x-glimpse-account-id' } as const;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function sameSecret(given: string | undefined, expected: string): boolean {
  if (!given) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

export function internalRouter({ internalToken, ...deps }: LookupDeps & { internalToken: string }): Router {
  const router = express.Router();
  const fromGateway: RequestHandler = (req, res, next) => {
    if (!sameSecret(req.get(INTERNAL_HEADERS.token), internalToken)) throw new AppError('unauthorized', 'internal endpoint: callers must be the gateway');
    const accountId = req.get(INTERNAL_HEADERS.account);
    if (!accountId || !UUID.test(accountId)) throw new AppError('invalid_request', `missing or invalid ${INTERNAL_HEADERS.account}`);
    res.locals.accountId = accountId;
    next();
  };

  router.get('/internal/visitors/:visitorId/details', fromGateway, async (req, res) => {
    res.json(await visitorDetails(deps, res.locals.accountId as string, req.params.visitorId as string));
  });
  router.post('/internal/enrichment', fromGateway, express.json({ limit: '32kb', strict: false }), async (req, res) => {
    res.json(await enrichPerson(deps, res.locals.accountId as string, req.body));
  });
  return router;
}
