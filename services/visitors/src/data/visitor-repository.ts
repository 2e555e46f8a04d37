// Reads for the internal API (a visitor, its sessions and identity history, a page of visitors, a
// site's hours and stats) and the deletions (a site, an erased person, a deleted account). Plain objects out.
import { camelRow } from '@glimpse/db';
import type { Db } from '@glimpse/db/visitors';
import type { SessionWrite, VisitorState } from '../domain/collected-records.js';
import type { HourRow, VisitorCursor, VisitorScoreCursor } from '../domain/visitor-views.js';
import { PROFILE_COLUMNS as COLUMNS, profileFromRow, type ProfileRow } from './collected-store.js';

export async function findVisitor(db: Db, accountId: string, visitorId: string): Promise<VisitorState | null> {
  const rows = await db.$queryRawUnsafe<ProfileRow[]>(`SELECT ${COLUMNS} FROM visitor_profiles WHERE account_id = $1::uuid AND id = $2`, accountId, visitorId);
  return rows[0] ? profileFromRow(rows[0]) : null;
}

/** A page of an account's visitors: at most `limit` after the cursor, only the identified or the anonymous when `identified` says which. */
export interface VisitorPageQuery<Cursor> {
  limit: number;
  after: Cursor | null;
  identified: boolean | null;
}

/** One more than `limit` when there is a next page. */
export async function visitorPage(db: Db, accountId: string, { limit, after, identified }: VisitorPageQuery<VisitorCursor>): Promise<VisitorState[]> {
  const rows = await db.$queryRawUnsafe<ProfileRow[]>(
    `SELECT ${COLUMNS} FROM visitor_profiles
     WHERE account_id = $1::uuid AND ($2::int IS NULL OR ((email IS NOT NULL)::int, last_seen, id) < ($2::int, $3::timestamptz, $4::text))
       AND ($6::bool IS NULL OR (email IS NOT NULL) = $6::bool)
     ORDER BY (email IS NOT NULL) DESC, last_seen DESC, id DESC LIMIT $5::int`,
    accountId,
    after ? (after.identified ? 1 : 0) : null,
    after?.lastSeen ?? null,
    after?.id ?? null,
    limit + 1,
    identified,
  );
  return rows.map(profileFromRow);
}

/** A page sorted by score: the highest intent rank first (the unscored last), then by id; one more than `limit` when there is a next page. */
export async function visitorPageByScore(
  db: Db,
  accountId: string,
  { limit, after, identified }: VisitorPageQuery<VisitorScoreCursor>,
): Promise<VisitorState[]> {
  const rows = await db.$queryRawUnsafe<ProfileRow[]>(
    // The scored by the rank index (DESC: nulls first, so they are read apart), then the unscored by id.
    `SELECT * FROM (
       (SELECT ${COLUMNS} FROM visitor_profiles
        WHERE account_id = $1::uuid AND intent_rank IS NOT NULL AND ($6::bool IS NULL OR (email IS NOT NULL) = $6::bool)
          AND (NOT $2::bool OR ($3::float8 IS NOT NULL AND (intent_rank < $3::float8 OR (intent_rank = $3::float8 AND id < $4::text))))
        ORDER BY intent_rank DESC, id DESC LIMIT $5::int)
       UNION ALL
       (SELECT ${COLUMNS} FROM visitor_profiles
        WHERE account_id = $1::uuid AND intent_rank IS NULL AND ($6::bool IS NULL OR (email IS NOT NULL) = $6::bool)
          AND (NOT $2::bool OR $3::float8 IS NOT NULL OR id < $4::text)
        ORDER BY id DESC LIMIT $5::int)) v
     ORDER BY intent_rank DESC NULLS LAST, id DESC LIMIT $5::int`,
    accountId,
    after !== null,
    after?.rank ?? null,
    after?.id ?? null,
    limit + 1,
    identified,
  );
  return rows.map(profileFromRow);
}

export async function siteHours(db: Db, accountId: string, siteId: string, since: Date): Promise<{ rows: HourRow[]; firstPageViewAt: string | null }> {
  // One snapshot: read apart, a chunk committed between the two reads gave a first page view's time
  // with its hour still empty (a full test run, 2026-11-28).
  const [rows, first] = await db.$transaction(
    [
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
    ],
    { isolationLevel: 'RepeatableRead' },
  );
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
       l AS (DELETE FROM identity_links WHERE account_id = $1::uuid AND (site_id = $2::uuid OR visitor_id IN (SELECT id FROM gone))),
       f AS (DELETE FROM page_rule_firings WHERE account_id = $1::uuid AND visitor_id IN (SELECT id FROM gone))
       DELETE FROM site_hours WHERE account_id = $1::uuid AND site_id = $2::uuid`,
    accountId,
    siteId,
  );
}

/** A session as the history shows it: the row the apply writes, without the account and visitor it is asked for by. */
export type SessionRow = Omit<SessionWrite, 'accountId' | 'visitorId'>;

export interface LinkRow {
  email: string;
  method: string;
  confidence: number;
  verified: boolean;
  at: string;
  sourceId: string;
  sourcePath: string | null;
}

/** A visitor's sessions (newest first, at most `limit`) and identity history (newest first). */
/**
 * A visitor with its sessions (newest first, at most `limit`) and identity history (newest first),
 * read in one snapshot: read apart, an identify committed between the reads gave a history of two
 * links beside the profile's older current email (a fresh-clone run, 2026-11-28).
 */
export async function visitorWithHistory(
  db: Db,
  accountId: string,
  visitorId: string,
  limit = 100,
): Promise<{ visitor: VisitorState; sessions: SessionRow[]; links: LinkRow[] } | null> {
  const [profiles, sessions, links] = await db.$transaction(
    [
      db.$queryRawUnsafe<ProfileRow[]>(`SELECT ${COLUMNS} FROM visitor_profiles WHERE account_id = $1::uuid AND id = $2`, accountId, visitorId),
      db.$queryRawUnsafe<
        {
          number: number;
          site_id: string;
          started_at: Date;
          last_at: Date;
          page_views: number;
          landing_path: string | null;
          referrer: string | null;
          utm_campaign: string | null;
        }[]
      >(
        `SELECT number, site_id::text AS site_id, started_at, last_at, page_views, landing_path, referrer, utm_campaign FROM visitor_sessions
         WHERE account_id = $1::uuid AND visitor_id = $2 ORDER BY number DESC LIMIT $3::int`,
        accountId,
        visitorId,
        limit,
      ),
      db.$queryRawUnsafe<{ email: string; method: string; confidence: number; verified: boolean; at: Date; source_id: string; source_path: string | null }[]>(
        `SELECT email, method, confidence, verified, at, source_id, source_path FROM identity_links WHERE account_id = $1::uuid AND visitor_id = $2 ORDER BY at DESC, source_id DESC LIMIT 500`,
        accountId,
        visitorId,
      ),
    ],
    { isolationLevel: 'RepeatableRead' },
  );
  if (!profiles[0]) return null;
  return { visitor: profileFromRow(profiles[0]), sessions: sessions.map(camelRow), links: links.map(camelRow) };
}

/** A site's last 24 hours: page views and bots from its hours, visitors (and identified ones) seen since. */
export async function siteStats(
  db: Db,
  accountId: string,
  siteId: string,
  since: Date,
): Promise<{ page_views: number; visitors: number; identified_visitors: number; bots: number }> {
  const rows = await db.$queryRawUnsafe<{ page_views: number; bots: number; visitors: number; identified: number }[]>(
    `SELECT
       (SELECT coalesce(sum(page_views), 0)::int FROM site_hours WHERE site_id = $1::uuid AND account_id = $2::uuid AND hour >= date_trunc('hour', $3::timestamptz)) AS page_views,
       (SELECT coalesce(sum(bots), 0)::int FROM site_hours WHERE site_id = $1::uuid AND account_id = $2::uuid AND hour >= date_trunc('hour', $3::timestamptz)) AS bots,
       (SELECT count(*)::int FROM visitor_profiles WHERE account_id = $2::uuid AND site_id = $1::uuid AND last_seen >= $3::timestamptz AND page_views > 0) AS visitors,
       (SELECT count(*)::int FROM visitor_profiles WHERE account_id = $2::uuid AND site_id = $1::uuid AND last_seen >= $3::timestamptz AND email IS NOT NULL) AS identified`,
    siteId,
    accountId,
    since.toISOString(),
  );
  const r = rows[0];
  return { page_views: r?.page_views ?? 0, visitors: r?.visitors ?? 0, identified_visitors: r?.identified ?? 0, bots: r?.bots ?? 0 };
}

/**
 * Erasure: the links to the email, and the profile, sessions and rule firings of every visitor ever
 * linked to it (or holding it now); and a tombstone (the keyed hash, never the email) so identifies of
 * the person still in flight are dropped. Returns how many visitors and links went.
 */
export async function erasePerson(db: Db, accountId: string, email: string, emailHash: string): Promise<{ deletedVisitors: number; deletedLinks: number }> {
  const rows = await db.$queryRawUnsafe<{ visitors: number; links: number }[]>(
    `WITH ids AS (
       SELECT visitor_id AS id FROM identity_links WHERE account_id = $1::uuid AND email = $2
       UNION SELECT id FROM visitor_profiles WHERE account_id = $1::uuid AND email = $2),
     t AS (INSERT INTO visitor_erasures (account_id, email_hash, erased_at) VALUES ($1::uuid, $3, now())
       ON CONFLICT (account_id, email_hash) DO UPDATE SET erased_at = now()),
     v AS (DELETE FROM visitor_profiles WHERE account_id = $1::uuid AND id IN (SELECT id FROM ids) RETURNING 1),
     s AS (DELETE FROM visitor_sessions WHERE account_id = $1::uuid AND visitor_id IN (SELECT id FROM ids)),
     f AS (DELETE FROM page_rule_firings WHERE account_id = $1::uuid AND visitor_id IN (SELECT id FROM ids)),
     l AS (DELETE FROM identity_links WHERE account_id = $1::uuid AND email = $2 RETURNING 1)
     SELECT (SELECT count(*) FROM v)::int AS visitors, (SELECT count(*) FROM l)::int AS links`,
    accountId,
    email,
    emailHash,
  );
  return { deletedVisitors: rows[0]?.visitors ?? 0, deletedLinks: rows[0]?.links ?? 0 };
}

/** Every row of the account in every visitors table but the collected ids (they have no account; they expire in 48 h). */
export async function deleteAccountVisitors(db: Db, accountId: string): Promise<number> {
  const rows = await db.$queryRawUnsafe<{ n: number }[]>(
    `WITH p AS (DELETE FROM visitor_profiles WHERE account_id = $1::uuid RETURNING 1),
     s AS (DELETE FROM visitor_sessions WHERE account_id = $1::uuid RETURNING 1),
     l AS (DELETE FROM identity_links WHERE account_id = $1::uuid RETURNING 1),
     h AS (DELETE FROM site_hours WHERE account_id = $1::uuid RETURNING 1),
     r AS (DELETE FROM page_rules WHERE account_id = $1::uuid RETURNING 1),
     f AS (DELETE FROM page_rule_firings WHERE account_id = $1::uuid RETURNING 1),
     e AS (DELETE FROM visitor_erasures WHERE account_id = $1::uuid RETURNING 1)
     SELECT ((SELECT count(*) FROM p) + (SELECT count(*) FROM s) + (SELECT count(*) FROM l) + (SELECT count(*) FROM h)
       + (SELECT count(*) FROM r) + (SELECT count(*) FROM f) + (SELECT count(*) FROM e))::int AS n`,
    accountId,
  );
  return rows[0]?.n ?? 0;
}
