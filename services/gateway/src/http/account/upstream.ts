// What the account routes that combine the visitors and enrichment services share: an answer from a
// service that a route cannot use is passed on to the client as it came, and the firmographics of a
// list of company keys are looked up a chunk at a time.
import type { Request, RequestHandler, Response } from 'express';
import { MAX_LOOKUP_DOMAINS, type CompanyRecord } from '@glimpse/api';
import type { EnrichmentClient } from '../../data/enrichment-client.js';
import { relay, type UpstreamResponse } from '../../data/internal-service.js';
import { looksLikeDomain } from '../../domain/company-list.js';

/** A service's answer the route cannot use, passed on as it came. */
export class Upstream extends Error {
  constructor(readonly response: UpstreamResponse) {
    super(`upstream ${response.status}`);
  }
}

/** The body of a service's answer: `status` only when given, else any 2xx; anything else is passed on (Upstream). */
export function bodyOf(r: UpstreamResponse, status?: number): unknown {
  if (status !== undefined ? r.status !== status : r.status < 200 || r.status > 299) throw new Upstream(r);
  return r.body;
}

/** A route whose unusable service answers reach the client as they came; other errors go to the error handler. */
export function relaying(fn: (req: Request, res: Response) => Promise<void>): RequestHandler {
  return async (req, res) => {
    try {
      await fn(req, res);
    } catch (err) {
      if (err instanceof Upstream) relay(res, err.response);
      else throw err;
    }
  };
}

/** The firmographics of those keys that are domains and match the filter, by domain (one call per MAX_LOOKUP_DOMAINS). */
export async function companyRecords(
  enrichment: EnrichmentClient,
  accountId: string,
  keys: readonly string[],
  filter: { industry?: string; size?: string } = {},
): Promise<Map<string, CompanyRecord>> {
  const domains = [...new Set(keys.filter(looksLikeDomain))];
  const out = new Map<string, CompanyRecord>();
  for (let i = 0; i < domains.length; i += MAX_LOOKUP_DOMAINS) {
    const { items } = bodyOf(await enrichment.companies(accountId, { domains: domains.slice(i, i + MAX_LOOKUP_DOMAINS), ...filter }), 200) as {
      items: CompanyRecord[];
    };
    for (const r of items) out.set(r.domain, r);
  }
  return out;
}
