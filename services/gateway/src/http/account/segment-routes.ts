// Segments (/account/segments) and alert settings (/account/alert-settings), answered by the
// visitors service that owns them. Industry and size are firmographics the enrichment service
// holds, which the visitors service does not reach: when a filter names either, the gateway takes
// every company key of the account from the visitors service, asks enrichment which match, and
// sends the matching keys along (`keys`, never the client's), on create, on change and again on
// each read of the segment or its members, so the background evaluation uses the keys of the last
// of those. Status and body pass through.
import express, { type Request, type Response, type Router } from 'express';
import { AppError } from '@glimpse/errors';
import { relay } from '../../data/internal-service.js';
import type { EnrichmentClient } from '../../data/enrichment-client.js';
import type { VisitorsClient } from '../../data/visitors-client.js';
import { jsonBody, rawSearch } from './json-body.js';
import { bodyOf, companyRecords, relaying } from './upstream.js';

const account = (res: Response) => res.locals.accountId as string;
const segmentId = (req: Request) => encodeURIComponent(req.params.id as string);

interface Clients {
  visitors: VisitorsClient;
  enrichment: EnrichmentClient;
}

type Firmographics = { industry?: string; size?: string };

/** The filter's industry and size when it names either as text (anything else the visitors service rejects). */
function firmographicsOf(filter: unknown): Firmographics | null {
  if (typeof filter !== 'object' || filter === null) return null;
  const { industry, size } = filter as Record<string, unknown>;
  if ((industry !== undefined && typeof industry !== 'string') || (size !== undefined && typeof size !== 'string')) return null;
  if (industry === undefined && size === undefined) return null;
  return { ...(industry !== undefined ? { industry: industry.trim() } : {}), ...(size !== undefined ? { size: size.trim() } : {}) };
}

/** The account's company keys whose firmographics match. */
async function matchingKeys({ visitors, enrichment }: Clients, accountId: string, f: Firmographics): Promise<string[]> {
  const { keys } = bodyOf(await visitors.call('GET', '/internal/segments/company-keys', accountId)) as { keys: string[] };
  return [...(await companyRecords(enrichment, accountId, keys, f)).keys()];
}

/** The client's body with the gateway's keys when its filter names industry or size. */
async function withKeys(clients: Clients, accountId: string, body: unknown): Promise<unknown> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return body;
  if (Object.hasOwn(body, 'keys')) throw new AppError('invalid_request', 'keys is not a field of a segment');
  const f = firmographicsOf((body as { filter?: unknown }).filter);
  return f ? { ...body, keys: await matchingKeys(clients, accountId, f) } : body;
}

/** Resolves a stored segment's industry and size again (its companies may have changed since). */
async function refresh(clients: Clients, accountId: string, id: string): Promise<void> {
  const { visitors } = clients;
  const { filter } = bodyOf(await visitors.call('GET', `/internal/segments/${id}/filter`, accountId)) as { filter: unknown };
  const f = firmographicsOf(filter);
  if (f) bodyOf(await visitors.call('PUT', `/internal/segments/${id}/keys`, accountId, { keys: await matchingKeys(clients, accountId, f) }));
}

export function segmentRoutes(clients: Clients): Router {
  const router = express.Router();
  segmentReads(router, clients);
  segmentWrites(router, clients);
  alertSettingsRoutes(router, clients.visitors);
  return router;
}

/** The segments, one segment and its members; a read of one resolves its industry and size again first. */
function segmentReads(router: Router, clients: Clients): void {
  const { visitors } = clients;
  router.get(
    '/account/segments',
    relaying(async (_req, res) => relay(res, await visitors.call('GET', '/internal/segments', account(res)))),
  );
  router.get(
    '/account/segments/:id',
    relaying(async (req, res) => {
      await refresh(clients, account(res), segmentId(req));
      relay(res, await visitors.call('GET', `/internal/segments/${segmentId(req)}`, account(res)));
    }),
  );
  router.get(
    '/account/segments/:id/members',
    relaying(async (req, res) => {
      await refresh(clients, account(res), segmentId(req));
      relay(res, await visitors.call('GET', `/internal/segments/${segmentId(req)}/members${rawSearch(req)}`, account(res)));
    }),
  );
}

/** A segment created, changed (both with the gateway's keys) or deleted. */
function segmentWrites(router: Router, clients: Clients): void {
  const { visitors } = clients;
  router.post(
    '/account/segments',
    jsonBody,
    relaying(async (req, res) => relay(res, await visitors.call('POST', '/internal/segments', account(res), await withKeys(clients, account(res), req.body)))),
  );
  router.patch(
    '/account/segments/:id',
    jsonBody,
    relaying(async (req, res) => {
      const body = await withKeys(clients, account(res), req.body);
      relay(res, await visitors.call('PATCH', `/internal/segments/${segmentId(req)}`, account(res), body));
      // A change of name or window keeps the filter: its keys are refreshed on the next read.
    }),
  );
  router.delete(
    '/account/segments/:id',
    relaying(async (req, res) => relay(res, await visitors.call('DELETE', `/internal/segments/${segmentId(req)}`, account(res)))),
  );
}

/** The account's alert settings, passed through. */
function alertSettingsRoutes(router: Router, visitors: VisitorsClient): void {
  router.get(
    '/account/alert-settings',
    relaying(async (_req, res) => relay(res, await visitors.call('GET', '/internal/alert-settings', account(res)))),
  );
  router.put(
    '/account/alert-settings',
    jsonBody,
    relaying(async (req, res) => relay(res, await visitors.call('PUT', '/internal/alert-settings', account(res), req.body))),
  );
}
