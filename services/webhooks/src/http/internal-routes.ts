// The webhooks service's internal HTTP API, behind the gateway's /account/webhooks: endpoints,
// secrets and deliveries of the account the gateway names.
import type { Request, Router } from 'express';
import type { Db } from '@glimpse/db/webhooks';
import { AppError } from '@glimpse/errors';
import { encodeCursor, gatewayInternalRouter, parsePageQuery } from '@glimpse/http';
import { ERASED_EMAIL_PATTERN } from '@glimpse/messaging';
import { normalizeEmail } from '@glimpse/validation';
import { parseEndpointChanges, parseNewEndpoint } from '../domain/endpoint-input.js';
import { erasePersonFromDeliveries } from '../data/delivery-repository.js';
import {
  createEndpoint,
  deleteEndpoint,
  deliveryPage,
  getEndpoint,
  listEndpoints,
  rotateEndpointSecret,
  updateEndpoint,
  type DeliveryPageQuery,
  type ManageDeps,
} from '../domain/manage-endpoints.js';

const STATUSES = ['pending', 'delivered', 'failed'] as const;

function parseDeliveryQuery(query: Record<string, unknown>): DeliveryPageQuery {
  const { limit, cursor, others } = parsePageQuery(query, ['status']);
  const { status } = others;
  if (status !== undefined && !(STATUSES as readonly string[]).includes(status))
    throw new AppError('invalid_request', `status must be one of ${STATUSES.join(', ')}`);
  return { limit, after: cursor, ...(status ? { status: status as DeliveryPageQuery['status'] } : {}) };
}

/** `db`: the erasure's writes, which go to the data layer alone. */
export function internalRouter({ deps, db, internalTokens }: { deps: ManageDeps; db: Db; internalTokens: Partial<Record<string, string>> }): Router {
  const { router, json, account } = gatewayInternalRouter(internalTokens);
  const id = (req: Request) => req.params.endpointId as string;

  router.get('/internal/webhooks', async (_req, res) => {
    res.json({ items: await listEndpoints(deps, account(res)) });
  });
  router.post('/internal/webhooks', json, async (req, res) => {
    res.status(201).json(await createEndpoint(deps, account(res), parseNewEndpoint(req.body)));
  });
  router.get('/internal/webhooks/:endpointId', async (req, res) => {
    res.json(await getEndpoint(deps, account(res), id(req)));
  });
  router.patch('/internal/webhooks/:endpointId', json, async (req, res) => {
    res.json(await updateEndpoint(deps, account(res), id(req), parseEndpointChanges(req.body)));
  });
  router.delete('/internal/webhooks/:endpointId', async (req, res) => {
    await deleteEndpoint(deps, account(res), id(req));
    res.status(204).end();
  });
  router.post('/internal/webhooks/:endpointId/rotate-secret', async (req, res) => {
    res.json(await rotateEndpointSecret(deps, account(res), id(req)));
  });
  router.get('/internal/webhooks/:endpointId/deliveries', async (req, res) => {
    const page = await deliveryPage(deps, account(res), id(req), parseDeliveryQuery(req.query as Record<string, unknown>));
    res.json({ items: page.items, nextCursor: page.next ? encodeCursor(page.next) : null });
  });
  // Erasure of a person (DELETE /account/persons/{email} at the gateway): their email leaves the
  // delivery records of the account's endpoints, replaced by the playbook service's stand-in.
  router.post('/internal/persons/erase', json, async (req, res) => {
    const email = typeof req.body?.email === 'string' ? normalizeEmail(req.body.email) : null;
    if (email === null) throw new AppError('invalid_request', 'email must be a valid email address');
    const replacement = req.body?.replacement;
    if (typeof replacement !== 'string' || !ERASED_EMAIL_PATTERN.test(replacement))
      throw new AppError('invalid_request', 'replacement must be an erased email stand-in (erased: and 64 hex digits)');
    res.json({ hashedDeliveries: await erasePersonFromDeliveries(db, account(res), email, replacement) });
  });
  return router;
}
