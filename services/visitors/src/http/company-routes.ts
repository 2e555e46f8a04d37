// The companies view, for the gateway: a page of the companies that visited in a window, every key of
// such a window (the gateway filters them by firmographics), and one company's days, people and pages.
import express, { type Router } from 'express';
import type { Db } from '@glimpse/db/visitors';
import { AppError } from '@glimpse/errors';
import { cutPage } from '@glimpse/http';
import {
  companyFilterSchema,
  companyWindow,
  decodeCompanyCursor,
  encodeCompanyCursor,
  topPages,
  zeroFilledDays,
  type CompanyFilter,
} from '../domain/company-views.js';
import { companyDays, companyKeys, companyPage, companyPages, companyPeople, type CompanyFilters } from '../data/company-repository.js';

const DEFAULT_LIMIT = 50;
/** The most keys a window's firmographic filter is applied to. */
const MAX_KEYS = 50_000;

function parseFilter(body: unknown): CompanyFilter {
  const parsed = companyFilterSchema.safeParse(body ?? {});
  if (!parsed.success) throw new AppError('invalid_request', parsed.error.issues[0]?.message ?? 'invalid filters');
  return parsed.data;
}

const filtersOf = (f: CompanyFilter): CompanyFilters => ({
  country: f.country ?? null,
  networkType: f.network_type ?? null,
  minVisits: f.min_visits ?? 1,
  keys: f.keys ?? null,
});

export function companyRoutes({
  db,
  account,
  json,
  now,
}: {
  db: Db;
  account: (res: express.Response) => string;
  json: express.RequestHandler;
  now: () => Date;
}): Router {
  const router = express.Router();

  router.post('/internal/companies/query', json, async (req, res) => {
    const f = parseFilter(req.body);
    const w = companyWindow(f, now());
    const sort = f.sort ?? 'last_visit';
    const limit = f.limit ?? DEFAULT_LIMIT;
    const rows = await companyPage(db, account(res), w, filtersOf(f), { sort, limit, after: f.cursor ? decodeCompanyCursor(f.cursor) : null });
    const page = cutPage(rows, limit, (last) =>
      encodeCompanyCursor({ key: last.key, value: sort === 'page_views' ? String(last.page_views) : last.last_visit }),
    );
    const pages = await companyPages(
      db,
      account(res),
      w,
      page.items.map((r) => r.key),
    );
    res.json({ items: page.items.map((r) => ({ ...r, top_pages: topPages(pages.get(r.key) ?? []) })), nextCursor: page.next });
  });

  router.post('/internal/companies/keys', json, async (req, res) => {
    const f = parseFilter(req.body);
    res.json({ keys: await companyKeys(db, account(res), companyWindow(f, now()), filtersOf(f), MAX_KEYS) });
  });

  router.get('/internal/companies/:key', async (req, res) => {
    const key = (req.params.key as string).toLowerCase();
    const { site, since, until } = req.query as Record<string, string | undefined>;
    const f = parseFilter({ site, since, until });
    const w = companyWindow(f, now());
    const [row] = await companyPage(db, account(res), w, { ...filtersOf(f), keys: [key] }, { sort: 'last_visit', limit: 1, after: null });
    if (!row) throw new AppError('not_found', 'no company with this key visited in the window');
    const [days, people, pages] = await Promise.all([
      companyDays(db, account(res), w, key),
      companyPeople(db, account(res), w, key),
      companyPages(db, account(res), w, [key]),
    ]);
    const viewed = topPages(pages.get(key) ?? [], 50);
    res.json({ ...row, top_pages: viewed.slice(0, 5), days: zeroFilledDays(days, w), people, pages: viewed });
  });
  return router;
}
