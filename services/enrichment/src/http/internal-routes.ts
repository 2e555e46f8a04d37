// The enrichment service's HTTP surface. It is internal: only the gateway may call it, proving
// it with the shared internal token, and it names the authenticated account in a header.
import express, { type Request, type Response, type Router } from 'express';
import { AppError } from '@glimpse/errors';
import { INTERNAL_HEADERS, fromGateway } from '@glimpse/http';
import { CREDITS_HEADER, enrichBulk, enrichPerson, visitorDetails, type Enriched, type LookupDeps } from '../domain/lookups.js';
import { accountUsage } from '../domain/usage.js';
import { isDatabaseUnavailable } from '../data/database-errors.js';

export { INTERNAL_HEADERS };

/** The JSON text as it is, without express's ETag (a hash of every answer no client revalidates). */
function sendJson(res: Response, json: string): void {
  res.status(200).setHeader('content-type', 'application/json; charset=utf-8');
  res.end(json);
}

/** A database that cannot be reached is a 503 the client may retry, never a 500. */
function handle(fn: (req: Request, res: Response) => Promise<void>) {
  return async (req: Request, res: Response) => {
    try {
      await fn(req, res);
    } catch (err) {
      if (!(err instanceof AppError) && isDatabaseUnavailable(err)) {
        throw new AppError('service_unavailable', 'the lookup database is unavailable; retry later', { cause: err, headers: { 'Retry-After': '1' } });
      }
      throw err;
    }
  };
}

export function internalRouter({ internalToken, ...deps }: LookupDeps & { internalToken: string }): Router {
  const router = express.Router();
  router.use('/internal', fromGateway(internalToken));
  const account = (res: Response) => res.locals.accountId as string;

  router.get('/internal/visitors/:visitorId/details', handle(async (req, res) => {
    sendJson(res, await visitorDetails(deps, account(res), req.params.visitorId as string));
  }));
  const sendEnriched = (res: Response, { record, creditsLeft }: Enriched) => {
    if (creditsLeft !== null) res.setHeader(CREDITS_HEADER, String(creditsLeft));
    sendJson(res, record);
  };
  router.post('/internal/enrichment', express.json({ limit: '32kb', strict: false }), handle(async (req, res) => {
    sendEnriched(res, await enrichPerson(deps, account(res), req.body));
  }));
  router.post('/internal/enrichment/bulk', express.json({ limit: '512kb', strict: false }), handle(async (req, res) => {
    sendEnriched(res, await enrichBulk(deps, account(res), req.body));
  }));
  router.get('/internal/usage', handle(async (req, res) => {
    res.json(await accountUsage(deps.db, account(res), req.query as Record<string, unknown>));
  }));
  return router;
}
