// The enrichment service's HTTP surface. It is internal: only the gateway may call it, proving
// it with the shared internal token, and it names the authenticated account in a header.
import express, { type Router } from 'express';
import { INTERNAL_HEADERS, fromGateway } from '@glimpse/http';
import { enrichPerson, visitorDetails, type LookupDeps } from '../domain/lookups.js';
import { accountUsage } from '../domain/usage.js';

export { INTERNAL_HEADERS };

export function internalRouter({ internalToken, ...deps }: LookupDeps & { internalToken: string }): Router {
  const router = express.Router();
  router.use('/internal', fromGateway(internalToken));
  const account = (res: express.Response) => res.locals.accountId as string;

  router.get('/internal/visitors/:visitorId/details', async (req, res) => {
    res.json(await visitorDetails(deps, account(res), req.params.visitorId as string));
  });
  router.post('/internal/enrichment', express.json({ limit: '32kb', strict: false }), async (req, res) => {
    res.json(await enrichPerson(deps, account(res), req.body));
  });
  router.get('/internal/usage', async (req, res) => {
    res.json(await accountUsage(deps.db, account(res), req.query as Record<string, unknown>));
  });
  return router;
}
