// The companies view's reads: the companies whose visitors had sessions in a window (grouped by the
// key each visitor counts for), a page of them in the chosen order, their top pages, and one
// company's days, people and pages. Sessions give the window (they carry their start); profiles give
// the company, identification, network and location.
import type { Db } from '@glimpse/db/visitors';
import type { CompanyCursor, CompanyWindow, DayRow } from '../domain/company-views.js';
import type { Location } from '../domain/network-lookup.js';

export interface CompanyFilters {
  country: string | null;
  networkType: string | null;
  minVisits: number;
  /** Only these keys (null: any). */
  keys: string[] | null;
}

export interface CompanyRow {
  key: string;
  name: string | null;
  domain: string | null;
  visitors: number;
  identified: number;
  page_views: number;
  sessions: number;
  first_visit: string;
  last_visit: string;
  location: Location | null;
  network_type: string | null;
}

// $1 account, $2 since, $3 until, $4 site, $5 country, $6 network type, $7 keys, $8 min visits.
const GROUPED = `WITH s AS (
    SELECT p.company_key AS key, s.visitor_id, s.started_at, s.last_at, s.page_views, p.email, p.last_seen,
      p.company->>'name' AS name, p.company->>'domain' AS domain, p.location, p.network->>'type' AS network_type
    FROM visitor_sessions s JOIN visitor_profiles p ON p.account_id = s.account_id AND p.id = s.visitor_id
    WHERE s.account_id = $1::uuid AND s.started_at >= $2::timestamptz AND s.started_at < $3::timestamptz
      AND ($4::uuid IS NULL OR s.site_id = $4::uuid) AND p.company_key IS NOT NULL
      AND ($5::text IS NULL OR p.location->>'country' = $5::text)
      AND ($6::text IS NULL OR p.network->>'type' = $6::text)
      AND ($7::text[] IS NULL OR p.company_key = ANY($7::text[]))
  ), g AS (
    SELECT key, count(DISTINCT visitor_id)::int AS visitors, count(DISTINCT visitor_id) FILTER (WHERE email IS NOT NULL)::int AS identified,
      count(*)::int AS sessions, sum(page_views)::int AS page_views, min(started_at) AS first_visit, max(last_at) AS last_visit,
      (array_agg(name ORDER BY last_seen DESC) FILTER (WHERE name IS NOT NULL))[1] AS name,
      (array_agg(domain ORDER BY last_seen DESC) FILTER (WHERE domain IS NOT NULL))[1] AS domain,
      (array_agg(location::text ORDER BY last_seen DESC) FILTER (WHERE location IS NOT NULL))[1] AS location,
      (array_agg(network_type ORDER BY last_seen DESC) FILTER (WHERE network_type IS NOT NULL))[1] AS network_type
    FROM s GROUP BY key HAVING count(*) >= $8::int
  )`;

const ORDERS = {
  last_visit: { order: 'last_visit DESC, key', after: '(last_visit < $9::timestamptz OR (last_visit = $9::timestamptz AND key > $10::text))' },
  page_views: { order: 'page_views DESC, key', after: '(page_views < $9::int OR (page_views = $9::int AND key > $10::text))' },
} as const;

type RawRow = Omit<CompanyRow, 'first_visit' | 'last_visit' | 'location'> & { first_visit: Date; last_visit: Date; location: string | null };

const rowOf = (r: RawRow): CompanyRow => ({
  ...r,
  first_visit: new Date(r.first_visit).toISOString(),
  last_visit: new Date(r.last_visit).toISOString(),
  location: r.location === null ? null : (JSON.parse(r.location) as Location),
});

const params = (accountId: string, w: CompanyWindow, f: CompanyFilters) => [
  accountId,
  w.since.toISOString(),
  w.until.toISOString(),
  w.site,
  f.country,
  f.networkType,
  f.keys,
  f.minVisits,
];

/** One more than `limit` rows when there is a next page, in the sort's order after the cursor. */
export async function companyPage(
  db: Db,
  accountId: string,
  w: CompanyWindow,
  f: CompanyFilters,
  page: { sort: keyof typeof ORDERS; limit: number; after: CompanyCursor | null },
): Promise<CompanyRow[]> {
  const o = ORDERS[page.sort];
  const rows = await db.$queryRawUnsafe<RawRow[]>(
    `${GROUPED} SELECT * FROM g WHERE $9::text IS NULL OR ${o.after} ORDER BY ${o.order} LIMIT $11::int`,
    ...params(accountId, w, f),
    page.after?.value ?? null,
    page.after?.key ?? null,
    page.limit + 1,
  );
  return rows.map(rowOf);
}

/** Every company key of the window (for the gateway's firmographic filters), at most `limit`. */
export async function companyKeys(db: Db, accountId: string, w: CompanyWindow, f: CompanyFilters, limit: number): Promise<string[]> {
  const rows = await db.$queryRawUnsafe<{ key: string }[]>(`${GROUPED} SELECT key FROM g ORDER BY key LIMIT $9::int`, ...params(accountId, w, f), limit);
  return rows.map((r) => r.key);
}

/** The pages the companies' visitors viewed in the window (from each visitor's last pages), by company. */
export async function companyPages(db: Db, accountId: string, w: CompanyWindow, keys: string[]): Promise<Map<string, { path: string; views: number }[]>> {
  const out = new Map<string, { path: string; views: number }[]>();
  if (keys.length === 0) return out;
  const rows = await db.$queryRawUnsafe<{ key: string; path: string; views: number }[]>(
    `SELECT p.company_key AS key, e->>'path' AS path, count(*)::int AS views
     FROM visitor_profiles p CROSS JOIN LATERAL jsonb_array_elements(p.last_pages) e
     WHERE p.account_id = $1::uuid AND p.company_key = ANY($2::text[]) AND p.last_seen >= $3::timestamptz
       AND ($5::uuid IS NULL OR p.site_id = $5::uuid)
       AND (e->>'at')::timestamptz >= $3::timestamptz AND (e->>'at')::timestamptz < $4::timestamptz
     GROUP BY 1, 2`,
    accountId,
    keys,
    w.since.toISOString(),
    w.until.toISOString(),
    w.site,
  );
  for (const r of rows) out.set(r.key, [...(out.get(r.key) ?? []), { path: r.path, views: r.views }]);
  return out;
}

/** One company's visits per UTC day of the window. */
export async function companyDays(db: Db, accountId: string, w: CompanyWindow, key: string): Promise<DayRow[]> {
  return db.$queryRawUnsafe<DayRow[]>(
    `SELECT to_char(s.started_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day, count(DISTINCT s.visitor_id)::int AS visitors, count(*)::int AS sessions,
       sum(s.page_views)::int AS page_views
     FROM visitor_sessions s JOIN visitor_profiles p ON p.account_id = s.account_id AND p.id = s.visitor_id
     WHERE s.account_id = $1::uuid AND s.started_at >= $2::timestamptz AND s.started_at < $3::timestamptz
       AND ($4::uuid IS NULL OR s.site_id = $4::uuid) AND p.company_key = $5
     GROUP BY 1 ORDER BY 1`,
    accountId,
    w.since.toISOString(),
    w.until.toISOString(),
    w.site,
    key,
  );
}

/** One company's visitors with sessions in the window, newest first. */
export async function companyPeople(
  db: Db,
  accountId: string,
  w: CompanyWindow,
  key: string,
  limit = 100,
): Promise<{ visitorId: string; email: string | null; lastSeen: string; pageViews: number; location: Location | null }[]> {
  const rows = await db.$queryRawUnsafe<{ id: string; email: string | null; last_seen: Date; page_views: number; location: string | null }[]>(
    `SELECT p.id, p.email, p.last_seen, p.page_views, p.location::text AS location FROM visitor_profiles p
     WHERE p.account_id = $1::uuid AND p.company_key = $5 AND EXISTS (SELECT 1 FROM visitor_sessions s
       WHERE s.account_id = p.account_id AND s.visitor_id = p.id AND s.started_at >= $2::timestamptz AND s.started_at < $3::timestamptz
         AND ($4::uuid IS NULL OR s.site_id = $4::uuid))
     ORDER BY p.last_seen DESC, p.id LIMIT $6::int`,
    accountId,
    w.since.toISOString(),
    w.until.toISOString(),
    w.site,
    key,
    limit,
  );
  return rows.map((r) => ({
    visitorId: r.id,
    email: r.email,
    lastSeen: new Date(r.last_seen).toISOString(),
    pageViews: r.page_views,
    location: r.location === null ? null : (JSON.parse(r.location) as Location),
  }));
}
