// The companies view's reads: the companies whose visitors had sessions in a window (grouped by the
// key each visitor counts for), a page of them in the chosen order, their top pages, and one
// company's days, people and pages. Sessions give the window (they carry their start); profiles give
// the company, identification, network and location.
import type { Db } from '@glimpse/db/visitors';
import { companyRank, type CompanyCounts, type CompanyWindow, type DayRow } from '../domain/company-views.js';
import type { Location } from '../domain/network-lookup.js';
import type { IntentContribution } from '../domain/intent-score.js';
import { DEFAULT_HALF_LIFE_DAYS } from '../domain/intent-decay.js';
import { rawNowSql } from './intent-sql.js';

/** The account's half-life in seconds, read once per query (an InitPlan), not per profile. */
const HALF_LIFE_SECONDS = `(SELECT coalesce((SELECT half_life_days FROM intent_settings WHERE account_id = $1::uuid), ${DEFAULT_HALF_LIFE_DAYS}) * 86400)`;

/** Filters on the visitors themselves (the rest are applied to the aggregate, in memory). */
export interface VisitorFilters {
  country: string | null;
  networkType: string | null;
}

/**
 * Every company of a window with its counts: the sessions that started in it, grouped first by
 * visitor (so a visitor counts once without a sort), then by company. Narrow rows, hash
 * aggregates; the names, locations and pages of a page's companies are read apart (companyLooks).
 */
export async function companyAggregate(db: Db, accountId: string, w: CompanyWindow, f: VisitorFilters): Promise<CompanyCounts[]> {
  // One batch transaction (no interactive one, whose 5 s timeout a loaded machine can pass): the
  // aggregate's hash tables in memory, where the default 4 MB spills a window of 100,000 visitors to disk.
  const now = new Date();
  const [, rows, scores, [settings]] = await db.$transaction([
    db.$executeRawUnsafe(`SET LOCAL work_mem = '64MB'`),
    db.$queryRawUnsafe<(Omit<CompanyCounts, 'first_visit' | 'last_visit'> & { first_visit: Date; last_visit: Date })[]>(
      `WITH v AS (
         SELECT p.company_key AS key, s.visitor_id, count(*) AS sessions, sum(s.page_views) AS page_views, min(s.started_at) AS first_visit,
           max(s.last_at) AS last_visit, bool_or(p.email IS NOT NULL) AS identified
         FROM visitor_sessions s JOIN visitor_profiles p ON p.account_id = s.account_id AND p.id = s.visitor_id
         WHERE s.account_id = $1::uuid AND s.started_at >= $2::timestamptz AND s.started_at < $3::timestamptz
           AND ($4::uuid IS NULL OR s.site_id = $4::uuid) AND p.company_key IS NOT NULL
           AND ($5::text IS NULL OR p.location->>'country' = $5::text)
           AND ($6::text IS NULL OR p.network->>'type' = $6::text)
         GROUP BY p.company_key, s.visitor_id)
       SELECT key, count(*)::int AS visitors, (count(*) FILTER (WHERE identified))::int AS identified, sum(sessions)::int AS sessions,
         sum(page_views)::int AS page_views, min(first_visit) AS first_visit, max(last_visit) AS last_visit
       FROM v GROUP BY key`,
      accountId,
      w.since.toISOString(),
      w.until.toISOString(),
      w.site,
      f.country,
      f.networkType,
    ),
    // Its score counts every visitor of the company (not only the window's): the scored ones, by the rank index.
    db.$queryRawUnsafe<{ key: string; raw: number }[]>(
      `SELECT p.company_key AS key, sum(${rawNowSql('p', '$2::timestamptz', HALF_LIFE_SECONDS)})::float8 AS raw FROM visitor_profiles p
       WHERE p.account_id = $1::uuid AND p.intent_rank IS NOT NULL AND p.company_key IS NOT NULL GROUP BY 1`,
      accountId,
      now.toISOString(),
    ),
    db.$queryRawUnsafe<{ half_life_days: number }[]>(
      `SELECT coalesce((SELECT half_life_days FROM intent_settings WHERE account_id = $1::uuid), ${DEFAULT_HALF_LIFE_DAYS})::float8 AS half_life_days`,
      accountId,
    ),
  ]);
  const halfLife = settings?.half_life_days ?? DEFAULT_HALF_LIFE_DAYS;
  const ranks = new Map(scores.map((s) => [s.key, companyRank(s.raw, now, halfLife)]));
  return rows.map((r) => ({
    ...r,
    first_visit: new Date(r.first_visit).toISOString(),
    last_visit: new Date(r.last_visit).toISOString(),
    rank: ranks.get(r.key) ?? null,
  }));
}

/** What a page's companies look like: the name and domain the network data gave, its latest visitor's location and network type. */
export async function companyLooks(
  db: Db,
  accountId: string,
  keys: string[],
): Promise<Map<string, { name: string | null; domain: string | null; location: Location | null; network_type: string | null }>> {
  if (keys.length === 0) return new Map();
  const rows = await db.$queryRawUnsafe<{ key: string; name: string | null; domain: string | null; location: string | null; network_type: string | null }[]>(
    `SELECT k.key, l.name, l.domain, l.location, l.network_type FROM unnest($2::text[]) AS k(key) CROSS JOIN LATERAL (
       SELECT (array_agg(p.company->>'name') FILTER (WHERE p.company IS NOT NULL))[1] AS name,
         (array_agg(p.company->>'domain') FILTER (WHERE p.company IS NOT NULL))[1] AS domain,
         (array_agg(p.location::text) FILTER (WHERE p.location IS NOT NULL))[1] AS location,
         (array_agg(p.network->>'type') FILTER (WHERE p.network IS NOT NULL))[1] AS network_type
       FROM (SELECT company, location, network FROM visitor_profiles WHERE account_id = $1::uuid AND company_key = k.key ORDER BY last_seen DESC LIMIT 20) p) l`,
    accountId,
    keys,
  );
  return new Map(
    rows.map((r) => [
      r.key,
      { name: r.name, domain: r.domain, location: r.location === null ? null : (JSON.parse(r.location) as Location), network_type: r.network_type },
    ]),
  );
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

/** What a page's companies' scores are made of: the contributions of each one's best scored visitors (at most `perCompany`), by company. */
export async function companyContributions(db: Db, accountId: string, keys: string[], perCompany = 100): Promise<Map<string, IntentContribution[][]>> {
  const out = new Map<string, IntentContribution[][]>();
  if (keys.length === 0) return out;
  const rows = await db.$queryRawUnsafe<{ key: string; contributions: string }[]>(
    `SELECT k.key, v.contributions FROM unnest($2::text[]) AS k(key) CROSS JOIN LATERAL (
       SELECT p.intent_contributions::text AS contributions FROM visitor_profiles p
       WHERE p.account_id = $1::uuid AND p.company_key = k.key AND p.intent_rank IS NOT NULL
       ORDER BY p.intent_rank DESC LIMIT $3::int) v`,
    accountId,
    keys,
    perCompany,
  );
  for (const r of rows) out.set(r.key, [...(out.get(r.key) ?? []), JSON.parse(r.contributions) as IntentContribution[]]);
  return out;
}
