// The companies view: GET /account/companies (a page, or /account/companies.csv the whole list up
// to its cap) and GET /account/companies/{key}. The visitors service groups the visits by company;
// the enrichment service holds the firmographics, which the industry and size filters select on
// (first every key of the window from the visitors service, then the matching domains from
// enrichment, then the page of those keys). Upstream errors pass through.
import express, { type Response, type Router } from 'express';
import { COMPANIES_CSV_MAX, MAX_LOOKUP_DOMAINS, type CompanyRecord, type CompanySummary } from '@glimpse/api';
import { AppError } from '@glimpse/errors';
import { queryStrings } from '@glimpse/http';
import type { EnrichmentClient } from '../../data/enrichment-client.js';
import { relay, type UpstreamResponse } from '../../data/internal-service.js';
import type { VisitorsClient } from '../../data/visitors-client.js';
import { companiesCsv, FORWARDED_FILTERS, looksLikeDomain, withFirmographics, type CompanyRowIn } from '../../domain/company-list.js';

const account = (res: Response) => res.locals.accountId as string;
const LIST_PARAMS = [...FORWARDED_FILTERS, 'industry', 'size'];

/** An answer other than 200 from a service, passed on as it came. */
class Upstream extends Error {
  constructor(readonly response: UpstreamResponse) {
    super(`upstream ${response.status}`);
  }
}

const ok = (r: UpstreamResponse): unknown => {
  if (r.status !== 200) throw new Upstream(r);
  return r.body;
};

export function companyRoutes({ visitors, enrichment }: { visitors: VisitorsClient; enrichment: EnrichmentClient }): Router {
  const router = express.Router();

  /** The firmographics of these keys that are domains, by domain (one call per 10,000). */
  async function records(accountId: string, keys: readonly string[], filter: { industry?: string; size?: string } = {}): Promise<Map<string, CompanyRecord>> {
    const domains = [...new Set(keys.filter(looksLikeDomain))];
    const out = new Map<string, CompanyRecord>();
    for (let i = 0; i < domains.length; i += MAX_LOOKUP_DOMAINS) {
      const { items } = ok(await enrichment.companies(accountId, { domains: domains.slice(i, i + MAX_LOOKUP_DOMAINS), ...filter })) as {
        items: CompanyRecord[];
      };
      for (const r of items) out.set(r.domain, r);
    }
    return out;
  }

  async function list(
    accountId: string,
    query: Record<string, string | undefined>,
    whole: boolean,
  ): Promise<{ items: CompanySummary[]; nextCursor: string | null }> {
    const { industry, size, ...rest } = query;
    const filter: Record<string, unknown> = Object.fromEntries(Object.entries(rest).filter(([, v]) => v !== undefined));
    if (whole) Object.assign(filter, { limit: COMPANIES_CSV_MAX, cursor: undefined });
    if (industry !== undefined || size !== undefined) {
      const { keys } = ok(
        await visitors.call('POST', '/internal/companies/keys', accountId, { ...filter, limit: undefined, cursor: undefined, sort: undefined }),
      ) as {
        keys: string[];
      };
      filter.keys = [...(await records(accountId, keys, { industry, size })).keys()];
    }
    const page = ok(await visitors.call('POST', '/internal/companies/query', accountId, filter)) as { items: CompanyRowIn[]; nextCursor: string | null };
    const found = await records(
      accountId,
      page.items.map((r) => r.domain ?? r.key),
    );
    return { items: page.items.map((r) => withFirmographics(r, found)), nextCursor: page.nextCursor };
  }

  const answer = (fn: (req: express.Request, res: Response) => Promise<void>) => async (req: express.Request, res: Response) => {
    try {
      await fn(req, res);
    } catch (err) {
      if (err instanceof Upstream) relay(res, err.response);
      else throw err;
    }
  };

  router.get(
    '/account/companies',
    answer(async (req, res) => {
      res.json(await list(account(res), queryStrings(req.query as Record<string, unknown>, LIST_PARAMS), false));
    }),
  );

  router.get(
    '/account/companies.csv',
    answer(async (req, res) => {
      const { items } = await list(account(res), queryStrings(req.query as Record<string, unknown>, LIST_PARAMS), true);
      res.type('text/csv; charset=utf-8').attachment('companies.csv').send(companiesCsv(items));
    }),
  );

  router.get(
    '/account/companies/:key',
    answer(async (req, res) => {
      const key = (req.params.key as string).trim().toLowerCase();
      if (key.length === 0 || key.length > 300) throw new AppError('not_found', 'no company with this key visited in the window');
      const q = queryStrings(req.query as Record<string, unknown>, ['site', 'since', 'until']);
      const search = new URLSearchParams(Object.entries(q).filter((e): e is [string, string] => e[1] !== undefined)).toString();
      const detail = ok(
        await visitors.call('GET', `/internal/companies/${encodeURIComponent(key)}${search ? `?${search}` : ''}`, account(res)),
      ) as CompanyRowIn;
      const found = await records(account(res), [detail.domain ?? detail.key]);
      res.json(withFirmographics(detail, found));
    }),
  );
  return router;
}
