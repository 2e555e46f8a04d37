// The companies view, for the gateway: a page of the companies that visited in a window, every key of
// such a window (the gateway filters them by firmographics), and one company's days, people and pages.
import express, { type Router } from 'express';
import type { Db } from '@glimpse/db/visitors';
import { AppError } from '@glimpse/errors';
import { cutPage } from '@glimpse/http';
import {
  companyFilterSchema,
  companyPageOf,
  companySortValue,
  companyWindow,
  decodeCompanyCursor,
  encodeCompanyCursor,
  topPages,
  zeroFilledDays,
  type CompanyCounts,
  type CompanyFilter,
  type CompanyWindow,
} from '../domain/company-views.js';
import {
  companyAggregate,
  companyContributions,
  companyDays,
  companyLooks,
  companyPages,
  companyPeople,
  type VisitorFilters,
} from '../data/company-repository.js';
import { intentWeights } from '../data/intent-repository.js';
import { companyIntent, type IntentAnswer } from '../domain/intent-score.js';

const DEFAULT_LIMIT = 50;
/** The most keys a window's firmographic filter is applied to. */
const MAX_KEYS = 50_000;
/** Aggregates kept at once (the oldest goes first). */
const CACHED_AGGREGATES = 50;

function parseFilter(body: unknown): CompanyFilter {
  const parsed = companyFilterSchema.safeParse(body ?? {});
  if (!parsed.success) throw new AppError('invalid_request', parsed.error.issues[0]?.message ?? 'invalid filters');
  return parsed.data;
}

const visitorFilters = (f: CompanyFilter): VisitorFilters => ({ country: f.country ?? null, networkType: f.network_type ?? null });

/**
 * A window's aggregate, kept `ttlMs`: a dashboard's pages, sorts, filters and CSV of one minute read
 * it once (a window of 100,000 visitors is a few hundred ms of Postgres; a page cut from it, microseconds).
 * Concurrent asks of one window share one query.
 */
function aggregateCache(db: Db, ttlMs: number) {
  const entries = new Map<string, { at: number; rows: Promise<CompanyCounts[]> }>();
  return (accountId: string, w: CompanyWindow, f: VisitorFilters): Promise<CompanyCounts[]> => {
    const key = JSON.stringify([accountId, w.site, w.since.getTime(), w.until.getTime(), f.country, f.networkType]);
    const now = Date.now();
    const hit = entries.get(key);
    if (hit && now - hit.at < ttlMs) return hit.rows;
    const rows = companyAggregate(db, accountId, w, f);
    entries.delete(key);
    entries.set(key, { at: now, rows });
    rows.catch(() => entries.delete(key));
    for (const [k, e] of entries) if (entries.size > CACHED_AGGREGATES || now - e.at >= ttlMs) entries.delete(k);
    return rows;
  };
}

interface CompanyRouteOptions {
  db: Db;
  account: (res: express.Response) => string;
  json: express.RequestHandler;
  now: () => Date;
  /** How long a window's aggregate is reused. */
  cacheMs: number;
}

/** What the company routes share: their options, the aggregate cache and the companies' intent. */
interface CompanyContext extends CompanyRouteOptions {
  aggregate: ReturnType<typeof aggregateCache>;
  intents: ReturnType<typeof intentsOf>;
}

export function companyRoutes(options: CompanyRouteOptions): Router {
  const c: CompanyContext = { ...options, aggregate: aggregateCache(options.db, options.cacheMs), intents: intentsOf(options.db, options.now) };
  const router = express.Router();
  companyListRoutes(router, c);
  companyDetailRoute(router, c);
  return router;
}

/** The score now and reasons of these companies (their ranks from the aggregate, their best visitors' contributions). */
function intentsOf(db: Db, now: () => Date) {
  return async (accountId: string, rows: readonly CompanyCounts[]): Promise<Map<string, IntentAnswer>> => {
    const [w, contributions] = await Promise.all([
      intentWeights(db, accountId),
      companyContributions(
        db,
        accountId,
        rows.filter((r) => typeof r.rank === 'number').map((r) => r.key),
      ),
    ]);
    const at = now();
    const rawNow = (rank: number | null | undefined) =>
      rank === null || rank === undefined ? 0 : 2 ** (rank - at.getTime() / 1000 / (w.halfLifeDays * 86_400));
    return new Map(rows.map((r) => [r.key, companyIntent(rawNow(r.rank), contributions.get(r.key) ?? [], at, w)]));
  };
}

function companyListRoutes(router: Router, { db, account, json, now, aggregate, intents }: CompanyContext): void {
  router.post('/internal/companies/query', json, async (req, res) => {
    const f = parseFilter(req.body);
    const w = companyWindow(f, now());
    const sort = f.sort ?? 'last_visit';
    const limit = f.limit ?? DEFAULT_LIMIT;
    const rows = companyPageOf(await aggregate(account(res), w, visitorFilters(f)), {
      sort,
      limit,
      after: f.cursor ? decodeCompanyCursor(f.cursor) : null,
      minVisits: f.min_visits ?? 1,
      keys: f.keys ?? null,
    });
    const page = cutPage(rows, limit, (last) => encodeCompanyCursor({ key: last.key, value: companySortValue(sort, last) }));
    const keys = page.items.map((r) => r.key);
    const [looks, pages, scores] = await Promise.all([
      companyLooks(db, account(res), keys),
      companyPages(db, account(res), w, keys),
      intents(account(res), page.items),
    ]);
    res.json({
      items: page.items.map(({ rank: _rank, ...r }) => ({
        ...r,
        intent: scores.get(r.key) ?? { score: 0, reasons: [] },
        ...(looks.get(r.key) ?? { name: null, domain: null, location: null, network_type: null }),
        top_pages: topPages(pages.get(r.key) ?? []),
      })),
      nextCursor: page.next,
    });
  });

  router.post('/internal/companies/keys', json, async (req, res) => {
    const f = parseFilter(req.body);
    const rows = await aggregate(account(res), companyWindow(f, now()), visitorFilters(f));
    const minVisits = f.min_visits ?? 1;
    res.json({
      keys: rows
        .filter((r) => r.sessions >= minVisits)
        .map((r) => r.key)
        .slice(0, MAX_KEYS),
    });
  });
}

function companyDetailRoute(router: Router, { db, account, now, aggregate, intents }: CompanyContext): void {
  router.get('/internal/companies/:key', async (req, res) => {
    const key = (req.params.key as string).toLowerCase();
    const { site, since, until } = req.query as Record<string, string | undefined>;
    const f = parseFilter({ site, since, until });
    const w = companyWindow(f, now());
    const row = (await aggregate(account(res), w, visitorFilters(f))).find((r) => r.key === key);
    if (!row) throw new AppError('not_found', 'no company with this key visited in the window');
    const [looks, days, people, pages, scores] = await Promise.all([
      companyLooks(db, account(res), [key]),
      companyDays(db, account(res), w, key),
      companyPeople(db, account(res), w, key),
      companyPages(db, account(res), w, [key]),
      intents(account(res), [row]),
    ]);
    const viewed = topPages(pages.get(key) ?? [], 50);
    const { rank: _rank, ...counts } = row;
    res.json({
      ...counts,
      ...looks.get(key),
      top_pages: viewed.slice(0, 5),
      days: zeroFilledDays(days, w),
      people,
      pages: viewed,
      intent: scores.get(key) ?? { score: 0, reasons: [] },
    });
  });
}
