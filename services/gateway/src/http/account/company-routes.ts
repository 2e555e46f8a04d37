// The companies view: GET /account/companies (a page, or /account/companies.csv the whole list up
// to its cap) and GET /account/companies/{key}. The visitors service groups the visits by company;
// the enrichment service holds the firmographics, which the industry and size filters select on
// (first every key of the window from the visitors service, then the matching domains from
// enrichment, then the page of those keys). Upstream errors pass through.
import express, { type Response, type Router } from 'express';
import { COMPANIES_CSV_MAX, type CompanySummary } from '@glimpse/api';
import { AppError } from '@glimpse/errors';
import { queryStrings } from '@glimpse/http';
import type { EnrichmentClient } from '../../data/enrichment-client.js';
import type { VisitorsClient } from '../../data/visitors-client.js';
import { companiesCsv, FORWARDED_FILTERS, withFirmographics, type CompanyRowIn } from '../../domain/company-list.js';
import { bodyOf, companyRecords, relaying } from './upstream.js';

const account = (res: Response) => res.locals.accountId as string;
const LIST_PARAMS = [...FORWARDED_FILTERS, 'industry', 'size'];

interface Clients {
  visitors: VisitorsClient;
  enrichment: EnrichmentClient;
}

/** A page of the companies view (the whole list up to its cap when `whole`), filtered on firmographics when the query names industry or size. */
async function companyList(
  { visitors, enrichment }: Clients,
  accountId: string,
  query: Record<string, string | undefined>,
  whole: boolean,
): Promise<{ items: CompanySummary[]; nextCursor: string | null }> {
  const { industry, size, ...rest } = query;
  const filter: Record<string, unknown> = Object.fromEntries(Object.entries(rest).filter(([, v]) => v !== undefined));
  if (whole) Object.assign(filter, { limit: COMPANIES_CSV_MAX, cursor: undefined });
  if (industry !== undefined || size !== undefined) {
    const keysQuery = { ...filter, limit: undefined, cursor: undefined, sort: undefined };
    const { keys } = bodyOf(await visitors.call('POST', '/internal/companies/keys', accountId, keysQuery), 200) as { keys: string[] };
    filter.keys = [...(await companyRecords(enrichment, accountId, keys, { industry, size })).keys()];
  }
  const page = bodyOf(await visitors.call('POST', '/internal/companies/query', accountId, filter), 200) as { items: CompanyRowIn[]; nextCursor: string | null };
  const found = await companyRecords(
    enrichment,
    accountId,
    page.items.map((r) => r.domain ?? r.key),
  );
  return { items: page.items.map((r) => withFirmographics(r, found)), nextCursor: page.nextCursor };
}

/** One company of the view, with its firmographics. */
async function companyDetail({ visitors, enrichment }: Clients, accountId: string, rawKey: string, query: Record<string, unknown>) {
  const key = rawKey.trim().toLowerCase();
  if (key.length === 0 || key.length > 300) throw new AppError('not_found', 'no company with this key visited in the window');
  const q = queryStrings(query, ['site', 'since', 'until']);
  const search = new URLSearchParams(Object.entries(q).filter((e): e is [string, string] => e[1] !== undefined)).toString();
  const detail = bodyOf(
    await visitors.call('GET', `/internal/companies/${encodeURIComponent(key)}${search ? `?${search}` : ''}`, accountId),
    200,
  ) as CompanyRowIn;
  return withFirmographics(detail, await companyRecords(enrichment, accountId, [detail.domain ?? detail.key]));
}

export function companyRoutes(clients: Clients): Router {
  const router = express.Router();
  const listQuery = (req: express.Request) => queryStrings(req.query as Record<string, unknown>, LIST_PARAMS);

  router.get(
    '/account/companies',
    relaying(async (req, res) => {
      res.json(await companyList(clients, account(res), listQuery(req), false));
    }),
  );

  router.get(
    '/account/companies.csv',
    relaying(async (req, res) => {
      const { items } = await companyList(clients, account(res), listQuery(req), true);
      res.type('text/csv; charset=utf-8').attachment('companies.csv').send(companiesCsv(items));
    }),
  );

  router.get(
    '/account/companies/:key',
    relaying(async (req, res) => {
      res.json(await companyDetail(clients, account(res), req.params.key as string, req.query as Record<string, unknown>));
    }),
  );
  return router;
}
