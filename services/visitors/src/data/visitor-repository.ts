// Reads for the internal API (a visitor, a page of visitors, a site's hours) and the deletions
// (a site, an erased person, a deleted account). Plain objects out.
import type { Db } from '@glimpse/db';
import type { VisitorState } from '../domain/plan-collected.js';
import type { HourRow, VisitorCursor } from '../domain/visitor-views.js';
import { profileFromRow, type ProfileRow } from './collected-store.js';

const COLUMNS = `account_id::text AS account_id, id, site_id::text AS site_id, first_seen, last_seen, page_views, sessions, engaged_seconds,
  last_pages::text AS last_pages, first_referrer, first_utm::text AS first_utm, session_started_at, session_last_at, session_campaign,
  email, identified_method, identified_at`;

export async function findVisitor(db: Db, accountId: string, visitorId: string): Promise<VisitorState | null> {
  const rows = await db.$queryRawUnsafe<ProfileRow[]>(`SELECT ${COLUMNS} FROM visitor_profiles WHERE account_id = $1::uuid AND id = $2`, accountId, visitorId);
  return rows[0] ? profileFromRow(rows[0]) : null;
}

/** One more than `limit` when there is a next page. */
export async function visitorPage(db: Db, accountId: string, limit: number, after: VisitorCursor | null): Promise<VisitorState[]> {
  const rows = await db.$queryRawUnsafe<ProfileRow[]>(
    `SELECT ${COLUMNS} FROM visitor_profiles
     WHERE account_id = $1::uuid AND ($2::int IS NULL OR ((email IS NOT NULL)::int, last_seen, id) < ($2::int, $3::timestamptz, $4::text))
     ORDER BY (email IS NOT NULL) DESC, last_seen DESC, id DESC LIMIT $5::int`,
    accountId,
    after ? (after.identified ? 1 : 0) : null,
    after?.lastSeen ?? null,
    after?.id ?? null,
    limit + 1,
  );
  return rows.map(profileFromRow);
}

export async function siteHours(db: Db, accountId: string, siteId: string, since: Date): Promise<{ rows: HourRow[]; firstPageViewAt: string | null }> {
  const [rows, first] = await Promise.all([
    db.$queryRawUnsafe<{ hour: Date; page_views: number; visitors: number; bots: number }[]>(
      `SELECT hour, page_views, visitors, bots FROM site_hours WHERE site_id = $1::uuid AND account_id = $2::uuid AND hour >= $3::timestamptz ORDER BY hour`,
      siteId,
      accountId,
      since.toISOString(),
    ),
    // The first page view's time from the visitors first seen on the site; the first hour with one
    // only when no such visitor is left (an hour bucket starts before every view inside it).
    db.$queryRawUnsafe<{ at: Date | null }[]>(
      `SELECT COALESCE(
         (SELECT min(first_seen) FROM visitor_profiles WHERE site_id = $1::uuid AND account_id = $2::uuid AND page_views > 0),
         (SELECT min(hour) FROM site_hours WHERE site_id = $1::uuid AND account_id = $2::uuid AND page_views > 0)) AS at`,
      siteId,
      accountId,
    ),
  ]);
  const at = first[0]?.at ?? null;
  return {
    rows: rows.map((r) => ({ hour: new Date(r.hour).toISOString(), pageViews: r.page_views, visitors: r.visitors, bots: r.bots })),
    firstPageViewAt: at === null ? null : new Date(at).toISOString(),
  };
}

/** A site's visitors (first seen on it), their sessions and links, and the site's hours. */
export async function deleteSiteData(db: Db, accountId: string, siteId: string): Promise<number> {
  return db.$executeRawUnsafe(
      `WITH gone AS (DELETE FROM visitor_profiles WHERE account_id = $1::uuid AND site_id = $2::uuid RETURNING id),
       s AS (DELETE FROM visitor_sessions WHERE account_id = $1::uuid AND (site_id = $2::uuid OR visitor_id IN (SELECT id FROM gone))),
       l AS (DELETE FROM identity_links WHERE account_id = $1::uuid AND (site_id = $2::uuid OR visitor_id IN (SELECT id FROM gone)))
       DELETE FROM site_hours WHERE account_id = $1::uuid AND site_id = $2::uuid`,
      accountId,
      siteId,
    );
}

/**
 * Erasure: the links to the email, and the profile and sessions of every visitor ever linked to it
 * (or holding it now). Returns how many of each went.
 */
export async function erasePerson(db: Db, accountId: string, email: string): Promise<{ deletedVisitors: number; deletedLinks: number }> {
  const rows = await db.$queryRawUnsafe<{ visitors: number; links: number }[]>(
    `WITH ids AS (
       SELECT visitor_id AS id FROM identity_links WHERE account_id = $1::uuid AND email = $2
       UNION SELECT id FROM visitor_profiles WHERE account_id = $1::uuid AND email = $2),
     v AS (DELETE FROM visitor_profiles WHERE account_id = $1::uuid AND id IN (SELECT id FROM ids) RETURNING 1),
     s AS (DELETE FROM visitor_sessions WHERE account_id = $1::uuid AND visitor_id IN (SELECT id FROM ids)),
     l AS (DELETE FROM identity_links WHERE account_id = $1::uuid AND email = $2 RETURNING 1)
     SELECT (SELECT count(*) FROM v)::int AS visitors, (SELECT count(*) FROM l)::int AS links`,
    accountId,
    email,
  );
  return { deletedVisitors: rows[0]?.visitors ?? 0, deletedLinks: rows[0]?.links ?? 0 };
}

/** Every row of the account in every visitors table but the collected ids (they have no account; they expire in 48 h). */
export async function deleteAccountVisitors(db: Db, accountId: string): Promise<number> {
  const rows = await db.$queryRawUnsafe<{ n: number }[]>(
    `WITH p AS (DELETE FROM visitor_profiles WHERE account_id = $1::uuid RETURNING 1),
     s AS (DELETE FROM visitor_sessions WHERE account_id = $1::uuid RETURNING 1),
     l AS (DELETE FROM identity_links WHERE account_id = $1::uuid RETURNING 1),
     h AS (DELETE FROM site_hours WHERE account_id = $1::uuid RETURNING 1)
     SELECT ((SELECT count(*) FROM p) + (SELECT count(*) FROM s) + (SELECT count(*) FROM l) + (SELECT count(*) FROM h))::int AS n`,
    accountId,
  );
  return rows[0]?.n ?? 0;
}
