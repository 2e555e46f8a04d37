// /account/webhooks: endpoints, secrets and deliveries, answered by the webhooks service.
import express, { type Response, type Router } from 'express';
import { relay } from '../../data/internal-service.js';
import type { WebhooksClient } from '../../data/webhooks-client.js';
import { jsonBody, rawSearch } from './json-body.js';

const account = (res: Response) => res.locals.accountId as string;

export function webhookRoutes({ webhooks }: { webhooks: WebhooksClient }): Router {
  const router = express.Router();
  const one = (req: express.Request) => `/internal/webhooks/${encodeURIComponent(req.params.id as string)}`;

  router.get('/account/webhooks', async (_req, res) => relay(res, await webhooks.call('GET', '/internal/webhooks', account(res))));
  router.post('/account/webhooks', jsonBody, async (req, res) => relay(res, await webhooks.call('POST', '/internal/webhooks', account(res), req.body)));
  router.get('/account/webhooks/:id', async (req, res) => relay(res, await webhooks.call('GET', one(req), account(res))));
  router.patch('/account/webhooks/:id', jsonBody, async (req, res) => relay(res, await webhooks.call('PATCH', one(req), account(res), req.body)));
  router.delete('/account/webhooks/:id', async (req, res) => relay(res, await webhooks.call('DELETE', one(req), account(res))));
  router.post('/account/webhooks/:id/rotate-secret', async (req, res) => relay(res, await webhooks.call('POST', `${one(req)}/rotate-secret`, account(res))));
  router.get('/account/webhooks/:id/deliveries', async (req, res) =>
    relay(res, await webhooks.call('GET', `${one(req)}/deliveries${rawSearch(req)}`, account(res))),
  );
  return router;
}
