// The operator's IP datasets and network-type overrides under /operator, relayed to the visitors
// service that owns them (its /internal/ip-datasets and /internal/network-types), which checks the
// input and writes as its role: so `glimpse ip-datasets` and `glimpse network-types` need no route to
// the database from the operator's machine, only to the operator API.
//   GET    /operator/ip-datasets          the datasets: name, kind, format, precedence, version, size
//   DELETE /operator/ip-datasets/{name}   a dataset with its ranges or its file, in one transaction
//   GET    /operator/network-types        the overrides of network types
//   PUT    /operator/network-types        {"asn": "7922" | "org": "Example Corp", "type": "isp"}: set (or replace) one
//   DELETE /operator/network-types?asn=7922 (or ?org=…): remove one
// The service's answers (its 400 and 404 included) pass through as they are; the service away is
// 503 with Retry-After. Mounted behind operatorAuth (operator-routes.ts); not in the public OpenAPI document.
import express, { type Request, type Router } from 'express';
import { AppError } from '@glimpse/errors';
import type { Logger } from '@glimpse/logging';
import { relay, type InternalService } from '../data/internal-service.js';
import { NO_ACCOUNT } from '../data/import-forwarder.js';
import { jsonBody } from './account/json-body.js';
import { queryOptions } from './query-options.js';

export interface OperatorIpDataOptions {
  /** The visitors service's internal API. */
  visitors: InternalService;
  logger: Logger;
}

/** The one network a query names (asn or org), as the query string the service reads; 400 for a repeated or missing one. */
function networkQuery(req: Request): string {
  const query = queryOptions(req, ['asn', 'org']);
  if ([...query.keys()].length !== 1) throw new AppError('invalid_request', 'name one network: ?asn=NUMBER or ?org=NAME');
  return query.toString();
}

/** The fields of an override's body the service reads ({asn | org, type}); anything else is dropped. */
function overrideBody(body: unknown): Record<string, unknown> {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw new AppError('invalid_request', 'send a JSON object: {"asn": "7922", "type": "isp"} or {"org": "Example Corp", "type": "business"}');
  const { asn, org, type } = body as Record<string, unknown>;
  return { asn, org, type };
}

export function operatorIpDataRoutes({ visitors, logger }: OperatorIpDataOptions): Router {
  const router = express.Router();

  router.get('/operator/ip-datasets', async (_req, res) => {
    relay(res, await visitors.call('GET', '/internal/ip-datasets', NO_ACCOUNT));
  });
  router.delete('/operator/ip-datasets/:name', async (req, res) => {
    const name = req.params.name as string;
    const answer = await visitors.call('DELETE', `/internal/ip-datasets/${encodeURIComponent(name)}`, NO_ACCOUNT);
    // An audit line: what the operator changed and how it went.
    logger.info({ dataset: name, status: answer.status }, 'operator deleted an IP dataset');
    relay(res, answer);
  });

  router.get('/operator/network-types', async (_req, res) => {
    relay(res, await visitors.call('GET', '/internal/network-types', NO_ACCOUNT));
  });
  router.put('/operator/network-types', jsonBody, async (req, res) => {
    const body = overrideBody(req.body);
    const answer = await visitors.call('PUT', '/internal/network-types', NO_ACCOUNT, body);
    logger.info({ status: answer.status, type: typeof body.type === 'string' ? body.type : undefined }, 'operator set a network type');
    relay(res, answer);
  });
  router.delete('/operator/network-types', async (req, res) => {
    const answer = await visitors.call('DELETE', `/internal/network-types?${networkQuery(req)}`, NO_ACCOUNT);
    logger.info({ status: answer.status }, 'operator removed a network type');
    relay(res, answer);
  });
  return router;
}
