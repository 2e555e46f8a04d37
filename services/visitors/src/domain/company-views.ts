// The companies view's rules: the filters of a window, the order and cursor of a page (last visit
// or page views, newest or most first, then the key), the top pages of a company, and its days
// zero-filled. Pure; the SQL is data/company-repository.ts.
import { z } from 'zod';
import { AppError } from '@glimpse/errors';
import { COMPANY_SORTS, COMPANY_WINDOW_DAYS_DEFAULT, COMPANIES_CSV_MAX, type VisitorLocation } from '@glimpse/api';
import { COMPANY_NETWORK_TYPES } from '@glimpse/validation';

const DAY_MS = 86_400_000;
export const MAX_WINDOW_DAYS = 400;
export const TOP_PAGES = 5;

/** The filters of GET /account/companies as the gateway forwards them (industry and size are applied there, as `keys`). */
export const companyFilterSchema = z.strictObject({
  site: z.uuid({ error: 'site must be a site id (UUID)' }).optional(),
  since: z.iso.datetime({ error: 'since must be an ISO 8601 date-time' }).optional(),
  until: z.iso.datetime({ error: 'until must be an ISO 8601 date-time' }).optional(),
  country: z
    .string()
    .regex(/^[A-Za-z]{2}$/, 'country must be a two-letter ISO 3166 code')
    .transform((c) => c.toUpperCase())
    .optional(),
  network_type: z
    .enum(COMPANY_NETWORK_TYPES as ['business', 'education', 'government'], { error: 'network_type must be business, education or government' })
    .optional(),
  min_visits: z.coerce.number({ error: 'min_visits must be a whole number' }).int('min_visits must be a whole number').min(1).max(1_000_000).optional(),
  sort: z.enum(COMPANY_SORTS, { error: `sort must be ${COMPANY_SORTS.join(' or ')}` }).optional(),
  limit: z.coerce.number().int().min(1).max(COMPANIES_CSV_MAX, `limit must be 1 to ${COMPANIES_CSV_MAX}`).optional(),
  cursor: z.string().max(600).optional(),
  /** Only these companies (the ones whose firmographics matched the gateway's industry and size filters). */
  keys: z.array(z.string().max(300)).max(100_000).optional(),
});
export type CompanyFilter = z.infer<typeof companyFilterSchema>;

export interface CompanyWindow {
  site: string | null;
  since: Date;
  until: Date;
}

/** The window: until now by default, since 30 days before until; at most 400 days, and since before until. */
export function companyWindow(f: Pick<CompanyFilter, 'site' | 'since' | 'until'>, now: Date): CompanyWindow {
  // Until now by default, rounded up to the minute: one minute's requests share one window (and its cached aggregate).
  const until = f.until ? new Date(f.until) : new Date(Math.ceil(now.getTime() / 60_000) * 60_000);
  const since = f.since ? new Date(f.since) : new Date(until.getTime() - COMPANY_WINDOW_DAYS_DEFAULT * DAY_MS);
  if (since >= until) throw new AppError('invalid_request', 'since must be before until');
  if (until.getTime() - since.getTime() > MAX_WINDOW_DAYS * DAY_MS) throw new AppError('invalid_request', `the window is at most ${MAX_WINDOW_DAYS} days`);
  return { site: f.site ?? null, since, until };
}

/** A company's counts in a window (the aggregate the pages are cut from). */
export interface CompanyCounts {
  key: string;
  visitors: number;
  identified: number;
  page_views: number;
  sessions: number;
  first_visit: string;
  last_visit: string;
  /**
   * Its intent rank: log2 of its visitors' scores added (uncapped) plus the time over the half-life,
   * the same at any time (null: no score). Rounded to 1e-9, so a page's cursor holds across
   * recomputations of the aggregate.
   */
  rank?: number | null;
}

const SORT_VALUE = {
  last_visit: (r: CompanyCounts) => r.last_visit,
  page_views: (r: CompanyCounts) => r.page_views,
  score: (r: CompanyCounts) => r.rank ?? -Infinity,
} as const;

/** A company's rank from the sum of its visitors' raw scores at `now` (intentRank of the sum, rounded). */
export function companyRank(rawNow: number, now: Date, halfLifeDays: number): number | null {
  return rawNow > 0 ? Math.round((Math.log2(rawNow) + now.getTime() / 1000 / (halfLifeDays * 86_400)) * 1e9) / 1e9 : null;
}

/** The cursor value of a row in a sort. */
export function companySortValue(sort: (typeof COMPANY_SORTS)[number], r: CompanyCounts): string {
  return sort === 'page_views' ? String(r.page_views) : sort === 'score' ? String(r.rank ?? -Infinity) : r.last_visit;
}

/**
 * One page of the aggregate: the companies with at least `minVisits` sessions (and among `keys`, when
 * given), newest last visit or most page views first, then by key; after the cursor's row; one more
 * than `limit` when there is a next page.
 */
export function companyPageOf(
  rows: readonly CompanyCounts[],
  page: { sort: (typeof COMPANY_SORTS)[number]; limit: number; after: CompanyCursor | null; minVisits: number; keys: readonly string[] | null },
): CompanyCounts[] {
  const value = SORT_VALUE[page.sort];
  const keys = page.keys ? new Set(page.keys) : null;
  const cmp = (a: CompanyCounts, b: CompanyCounts) => {
    const x = value(a);
    const y = value(b);
    return x > y ? -1 : x < y ? 1 : a.key < b.key ? -1 : a.key > b.key ? 1 : 0;
  };
  const after = page.after;
  const afterRow = after
    ? ({
        key: after.key,
        last_visit: after.value,
        page_views: Number(after.value),
        rank: after.value === '-Infinity' ? null : Number(after.value),
      } as CompanyCounts)
    : null;
  return rows
    .filter((r) => r.sessions >= page.minVisits && (!keys || keys.has(r.key)) && (!afterRow || cmp(r, afterRow) > 0))
    .sort(cmp)
    .slice(0, page.limit + 1);
}

export interface CompanyCursor {
  /** The sort value of the last row: its last visit (ISO) or its page views. */
  value: string;
  key: string;
}

export function encodeCompanyCursor(c: CompanyCursor): string {
  return Buffer.from(JSON.stringify([c.value, c.key])).toString('base64url');
}

export function decodeCompanyCursor(value: string): CompanyCursor {
  const invalid = new AppError('invalid_request', 'cursor is not valid: pass the nextCursor of a previous page as it was');
  try {
    const parsed: unknown = JSON.parse(Buffer.from(value, 'base64url').toString('utf8'));
    if (Array.isArray(parsed) && parsed.length === 2 && typeof parsed[0] === 'string' && typeof parsed[1] === 'string')
      return { value: parsed[0], key: parsed[1] };
  } catch {
    // answered below
  }
  throw invalid;
}

/** The most viewed paths, most first, then by path. */
export function topPages(rows: readonly { path: string; views: number }[], n = TOP_PAGES): { path: string; views: number }[] {
  return [...rows].sort((a, b) => b.views - a.views || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0)).slice(0, n);
}

export interface DayRow {
  day: string;
  visitors: number;
  sessions: number;
  page_views: number;
}

/** Every UTC day of the window, oldest first, days without visits as zeros. */
export function zeroFilledDays(rows: readonly DayRow[], window: CompanyWindow): DayRow[] {
  const byDay = new Map(rows.map((r) => [r.day, r]));
  const out: DayRow[] = [];
  for (let t = Math.floor(window.since.getTime() / DAY_MS) * DAY_MS; t < window.until.getTime(); t += DAY_MS) {
    const day = new Date(t).toISOString().slice(0, 10);
    out.push(byDay.get(day) ?? { day, visitors: 0, sessions: 0, page_views: 0 });
  }
  return out;
}

export type { VisitorLocation };
