// Segments (/account/segments) and alert settings (/account/alert-settings), answered by the
// visitors service that owns them. Industry and size are firmographics the enrichment service
// holds, which the visitors service does not reach: when a filter names either, the gateway takes
// every company key of the account from the visitors service, asks enrichment which match, and
// sends the matching keys along (`keys`, never the client's), on create, on change and again on
// each read of the segment or its members, so the background evaluation uses the keys of the last
// of those. Status and body pass through.
import express, { type Response, type Router } from 'express';
import { MAX_LOOKUP_DOMAINS, type CompanyRecord } from '@glimpse/api';
import { AppError } from '@glimpse/errors';
import { relay, type UpstreamResponse } from '../../data/internal-service.js';
import type { EnrichmentClient } from '../../data/enrichment-client.js';
import type { VisitorsClient } from '../../data/visitors-client.js';
import { looksLikeDomain } from '../../domain/company-list.js';
import { jsonBody, rawSearch } from './json-body.js';

const account = (res: Response) => res.locals.accountId as string;

/** An answer other than 2xx from a service, passed on as it came. */
class Upstream extends Error {
  constructor(readonly response: UpstreamResponse) {
    super(`upstream ${response.status}`);
  }
}

const ok = (r: UpstreamResponse): unknown => {
  if (r.status < 200 || r.status > 299) throw new Upstream(r);
  return r.body;
};

type Firmographics = { industry?: string; size?: string };

/** The filter's industry and size when it names either as text (anything else the visitors service rejects). */
function firmographicsOf(filter: unknown): Firmographics | null {
  if (typeof filter !== 'object' || filter === null) return null;
  const { industry, size } = filter as Record<string, unknown>;
  if ((industry !== undefined && typeof industry !== 'string') || (size !== undefined && typeof size !== 'string')) return null;
  if (industry === undefined && size === undefined) return null;
  return { ...(industry !== undefined ? { industry: industry.trim() } : {}), ...(size !== undefined ? { size: size.trim() } : {}) };
}

export function segmentRoutes({ visitors, enrichment }: { visitors: VisitorsClient; enrichment: EnrichmentClient }): Router {
  const router = express.Router();

  /** The account's company keys whose firmographics match. */
  async function matchingKeys(accountId: string, f: Firmographics): Promise<string[]> {
    const { keys } = ok(await visitors.call('GET', '/internal/segments/company-keys', accountId)) as { keys: string[] };
    const domains = [...new Set(keys.filter(looksLikeDomain))];
    const out: string[] = [];
    for (let i = 0; i < domains.length; i += MAX_LOOKUP_DOMAINS) {
      const { items } = ok(await enrichment.companies(accountId, { domains: domains.slice(i, i + MAX_LOOKUP_DOMAINS), ...f })) as { items: CompanyRecord[] };
      for (const r of items) out.push(r.domain);
    }
    return out;
  }

  /** The client's body with the gateway's keys when its filter names industry or size. */
  async function withKeys(accountId: string, body: unknown): Promise<unknown> {
    if (typeof body !== 'object' || body === null || Array.isArray(body)) return body;
    if (Object.hasOwn(body, 'keys')) throw new AppError('invalid_request', 'keys is not a field of a segment');
    const f = firmographicsOf((body as { filter?: unknown }).filter);
    return f ? { ...body, keys: await matchingKeys(accountId, f) } : body;
  }

  /** Resolves a stored segment's industry and size again (its companies may have changed since). */
  async function refresh(accountId: string, id: string): Promise<void> {
    const { filter } = ok(await visitors.call('GET', `/internal/segments/${id}/filter`, accountId)) as { filter: unknown };
    const f = firmographicsOf(filter);
    if (f) ok(await visitors.call('PUT', `/internal/segments/${id}/keys`, accountId, { keys: await matchingKeys(accountId, f) }));
  }

  const answer = (fn: (req: express.Request, res: Response) => Promise<void>) => async (req: express.Request, res: Response) => {
    try {
      await fn(req, res);
    } catch (err) {
      if (err instanceof Upstream) relay(res, err.response);
      else throw err;
    }
  };
  const segmentId = (req: express.Request) => encodeURIComponent(req.params.id as string);

  router.get(
    '/account/segments',
    answer(async (_req, res) => relay(res, await visitors.call('GET', '/internal/segments', account(res)))),
  );
  router.post(
    '/account/segments',
    jsonBody,
    answer(async (req, res) => relay(res, await visitors.call('POST', '/internal/segments', account(res), await withKeys(account(res), req.body)))),
  );
  router.get(
    '/account/segments/:id',
    answer(async (req, res) => {
      await refresh(account(res), segmentId(req));
      relay(res, await visitors.call('GET', `/internal/segments/${segmentId(req)}`, account(res)));
    }),
  );
  router.patch(
    '/account/segments/:id',
    jsonBody,
    answer(async (req, res) => {
      const body = await withKeys(account(res), req.body);
      relay(res, await visitors.call('PATCH', `/internal/segments/${segmentId(req)}`, account(res), body));
      // A change of name or window keeps the filter: its keys are refreshed on the next read.
    }),
  );
  router.delete(
    '/account/segments/:id',
    answer(async (req, res) => relay(res, await visitors.call('DELETE', `/internal/segments/${segmentId(req)}`, account(res)))),
  );
  router.get(
    '/account/segments/:id/members',
    answer(async (req, res) => {
      await refresh(account(res), segmentId(req));
      relay(res, await visitors.call('GET', `/internal/segments/${segmentId(req)}/members${rawSearch(req)}`, account(res)));
    }),
  );
  router.get(
    '/account/alert-settings',
    answer(async (_req, res) => relay(res, await visitors.call('GET', '/internal/alert-settings', account(res)))),
  );
  router.put(
    '/account/alert-settings',
    jsonBody,
    answer(async (req, res) => relay(res, await visitors.call('PUT', '/internal/alert-settings', account(res), req.body))),
  );
  return router;
}
