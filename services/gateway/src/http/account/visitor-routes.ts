// A visitor's full record (pages, sessions, identity history, consent, company, intent score), the
// account's page rules and its intent settings, answered by the visitors service that owns them;
// status and body pass through. A page rule with an event needs the workflows add-on; one that only
// scores (a weight, no event) does not.
import express, { type Response, type Router } from 'express';
import { AppError } from '@glimpse/errors';
import { VISITOR_ID_PATTERN } from '@glimpse/messaging';
import { relay } from '../../data/internal-service.js';
import type { VisitorsClient } from '../../data/visitors-client.js';
import { jsonBody } from './json-body.js';
import { requireWorkflows } from './workflows-addon.js';

/** A page rule body naming an event: the event is of the workflows add-on. */
const makesEvent: express.RequestHandler = (req, res, next) => {
  const body = req.body as { event?: unknown } | null;
  if (body !== null && typeof body === 'object' && body.event !== undefined && body.event !== null) requireWorkflows(req, res, next);
  else next();
};

const account = (res: Response) => res.locals.accountId as string;

export function visitorRoutes({ visitors }: { visitors: VisitorsClient }): Router {
  const router = express.Router();
  router.get('/account/visitors/:id', async (req, res) => {
    const id = req.params.id as string;
    // Only a visitor id is forwarded: anything else names no visitor.
    if (!VISITOR_ID_PATTERN.test(id)) throw new AppError('not_found', 'no such visitor in this account');
    relay(res, await visitors.call('GET', `/internal/visitors/${id}`, account(res)));
  });
  router.get('/account/page-rules', async (_req, res) => relay(res, await visitors.call('GET', '/internal/page-rules', account(res))));
  router.post('/account/page-rules', jsonBody, makesEvent, async (req, res) =>
    relay(res, await visitors.call('POST', '/internal/page-rules', account(res), req.body)),
  );
  router.patch('/account/page-rules/:id', jsonBody, async (req, res) =>
    relay(res, await visitors.call('PATCH', `/internal/page-rules/${encodeURIComponent(req.params.id as string)}`, account(res), req.body)),
  );
  router.get('/account/intent', async (_req, res) => relay(res, await visitors.call('GET', '/internal/intent', account(res))));
  router.put('/account/intent', jsonBody, async (req, res) => relay(res, await visitors.call('PUT', '/internal/intent', account(res), req.body)));
  router.delete('/account/page-rules/:id', async (req, res) =>
    relay(res, await visitors.call('DELETE', `/internal/page-rules/${encodeURIComponent(req.params.id as string)}`, account(res))),
  );
  return router;
}
