// The collected store on Postgres: a chunk is one transaction of set-based statements, each one
// round trip whatever the chunk's size (arrays bound as parameters, unnest on the server):
//   load: the chunk's ids already collected (one SELECT) and its visitors' profiles, locked in key
//         order so concurrent chunks of one visitor queue instead of overwriting (one SELECT);
//   write: the new ids (one INSERT), new profiles (one INSERT) and changed ones (one UPDATE),
//         sessions (one upsert adding page views), identity links (one INSERT), and last the
//         per-site hour counters (one upsert in (site, hour) order), held locked the least time.
// An insert that meets a row another transaction wrote meanwhile (ids, a new visitor) aborts the
// chunk with ConcurrentApplyError: retried, it finds that work done.
import type { Db } from '@glimpse/db';
import type { Utm } from '@glimpse/messaging';
import { ConcurrentApplyError, type ChunkState, type CollectedStore, type CollectedTransaction } from '../domain/apply-collected.js';
import { collectedKey, profileKey, type CollectedPlan, type PageEntry, type VisitorState } from '../domain/plan-collected.js';

/** Prisma's interactive transaction ends after 5 s by default: a big chunk on a loaded machine needs longer. */
const TRANSACTION = { maxWait: 10_000, timeout: 30_000 };

type Tx = Pick<Db, '$queryRawUnsafe' | '$executeRawUnsafe'>;

const PROFILE_COLUMNS = `account_id::text AS account_id, id, site_id::text AS site_id, first_seen, last_seen, page_views, sessions, engaged_seconds,
  last_pages::text AS last_pages, first_referrer, first_utm::text AS first_utm, session_started_at, session_last_at, session_campaign,
  email, identified_method, identified_at`;

export interface ProfileRow {
  account_id: string;
  id: string;
  site_id: string;
  first_seen: Date;
  last_seen: Date;
  page_views: number;
  sessions: number;
  engaged_seconds: number;
  last_pages: string;
  first_referrer: string | null;
  first_utm: string | null;
  session_started_at: Date | null;
  session_last_at: Date | null;
  session_campaign: string | null;
  email: string | null;
  identified_method: string | null;
  identified_at: Date | null;
}

const SQL = {
  collected: `SELECT c.visitor_id, c.id FROM collected_messages c
    JOIN (SELECT DISTINCT * FROM unnest($1::text[], $2::text[])) AS u(visitor_id, id) USING (visitor_id, id)`,
  profiles: `SELECT ${PROFILE_COLUMNS} FROM visitor_profiles p
    WHERE (p.account_id, p.id) IN (SELECT * FROM unnest($1::uuid[], $2::text[]))
    ORDER BY p.account_id, p.id FOR UPDATE`,
  recordIds: `INSERT INTO collected_messages (visitor_id, id, at)
    SELECT * FROM unnest($1::text[], $2::text[], $3::timestamptz[]) ON CONFLICT DO NOTHING`,
  insertProfiles: `INSERT INTO visitor_profiles (account_id, id, site_id, first_seen, last_seen, page_views, sessions, engaged_seconds,
      last_pages, first_referrer, first_utm, session_started_at, session_last_at, session_campaign, email, identified_method, identified_at)
    SELECT u.account_id, u.id, u.site_id, u.first_seen, u.last_seen, u.page_views, u.sessions, u.engaged_seconds,
      u.last_pages::jsonb, u.first_referrer, u.first_utm::jsonb, u.session_started_at, u.session_last_at, u.session_campaign, u.email, u.identified_method, u.identified_at
    FROM unnest($1::uuid[], $2::text[], $3::uuid[], $4::timestamptz[], $5::timestamptz[], $6::int[], $7::int[], $8::int[], $9::text[], $10::text[], $11::text[],
      $12::timestamptz[], $13::timestamptz[], $14::text[], $15::text[], $16::text[], $17::timestamptz[])
      AS u(account_id, id, site_id, first_seen, last_seen, page_views, sessions, engaged_seconds, last_pages, first_referrer, first_utm,
        session_started_at, session_last_at, session_campaign, email, identified_method, identified_at)
    ON CONFLICT (account_id, id) DO NOTHING`,
  updateProfiles: `UPDATE visitor_profiles p SET first_seen = u.first_seen, last_seen = u.last_seen, page_views = u.page_views, sessions = u.sessions,
      engaged_seconds = u.engaged_seconds, last_pages = u.last_pages::jsonb, first_referrer = u.first_referrer, first_utm = u.first_utm::jsonb,
      session_started_at = u.session_started_at, session_last_at = u.session_last_at, session_campaign = u.session_campaign,
      email = u.email, identified_method = u.identified_method, identified_at = u.identified_at, updated_at = now()
    FROM unnest($1::uuid[], $2::text[], $3::uuid[], $4::timestamptz[], $5::timestamptz[], $6::int[], $7::int[], $8::int[], $9::text[], $10::text[], $11::text[],
      $12::timestamptz[], $13::timestamptz[], $14::text[], $15::text[], $16::text[], $17::timestamptz[])
      AS u(account_id, id, site_id, first_seen, last_seen, page_views, sessions, engaged_seconds, last_pages, first_referrer, first_utm,
        session_started_at, session_last_at, session_campaign, email, identified_method, identified_at)
    WHERE p.account_id = u.account_id AND p.id = u.id`,
  sessions: `INSERT INTO visitor_sessions (account_id, visitor_id, number, site_id, started_at, last_at, page_views, landing_path, referrer, utm_campaign)
    SELECT * FROM unnest($1::uuid[], $2::text[], $3::int[], $4::uuid[], $5::timestamptz[], $6::timestamptz[], $7::int[], $8::text[], $9::text[], $10::text[])
    ON CONFLICT (account_id, visitor_id, number) DO UPDATE SET
      last_at = GREATEST(visitor_sessions.last_at, EXCLUDED.last_at), page_views = visitor_sessions.page_views + EXCLUDED.page_views`,
  links: `INSERT INTO identity_links (account_id, visitor_id, site_id, email, method, at, source_id, source_path)
    SELECT * FROM unnest($1::uuid[], $2::text[], $3::uuid[], $4::text[], $5::text[], $6::timestamptz[], $7::text[], $8::text[])
    ON CONFLICT (account_id, visitor_id, source_id) DO NOTHING`,
  siteHours: `INSERT INTO site_hours (site_id, hour, account_id, page_views, visitors, bots)
    SELECT * FROM unnest($1::uuid[], $2::timestamptz[], $3::uuid[], $4::int[], $5::int[], $6::int[])
    ON CONFLICT (site_id, hour) DO UPDATE SET page_views = site_hours.page_views + EXCLUDED.page_views,
      visitors = site_hours.visitors + EXCLUDED.visitors, bots = site_hours.bots + EXCLUDED.bots`,
};

const isoOrNull = (d: Date | string | null) => (d === null ? null : new Date(d).toISOString());

export function profileFromRow(r: ProfileRow): VisitorState {
  return {
    accountId: r.account_id,
    visitorId: r.id,
    siteId: r.site_id,
    firstSeen: new Date(r.first_seen).toISOString(),
    lastSeen: new Date(r.last_seen).toISOString(),
    pageViews: r.page_views,
    sessions: r.sessions,
    engagedSeconds: r.engaged_seconds,
    lastPages: JSON.parse(r.last_pages) as PageEntry[],
    firstReferrer: r.first_referrer,
    firstUtm: r.first_utm === null ? null : (JSON.parse(r.first_utm) as Utm),
    sessionStartedAt: isoOrNull(r.session_started_at),
    sessionLastAt: isoOrNull(r.session_last_at),
    sessionCampaign: r.session_campaign,
    email: r.email,
    identifiedMethod: r.identified_method,
    identifiedAt: isoOrNull(r.identified_at),
  };
}

function profileColumns(p: readonly VisitorState[]): unknown[] {
  return [
    p.map((x) => x.accountId),
    p.map((x) => x.visitorId),
    p.map((x) => x.siteId),
    p.map((x) => x.firstSeen),
    p.map((x) => x.lastSeen),
    p.map((x) => x.pageViews),
    p.map((x) => x.sessions),
    p.map((x) => x.engagedSeconds),
    p.map((x) => JSON.stringify(x.lastPages)),
    p.map((x) => x.firstReferrer),
    p.map((x) => (x.firstUtm === null ? null : JSON.stringify(x.firstUtm))),
    p.map((x) => x.sessionStartedAt),
    p.map((x) => x.sessionLastAt),
    p.map((x) => x.sessionCampaign),
    p.map((x) => x.email),
    p.map((x) => x.identifiedMethod),
    p.map((x) => x.identifiedAt),
  ];
}

function transaction(tx: Tx): CollectedTransaction {
  return {
    async load(visitors, ids): Promise<ChunkState> {
      const [found, rows] = [
        await tx.$queryRawUnsafe<{ visitor_id: string; id: string }[]>(SQL.collected, ids.map((i) => i.visitorId), ids.map((i) => i.id)),
        visitors.length === 0 ? [] : await tx.$queryRawUnsafe<ProfileRow[]>(SQL.profiles, visitors.map((v) => v.accountId), visitors.map((v) => v.visitorId)),
      ];
      return {
        collected: new Set(found.map((r) => collectedKey(r.visitor_id, r.id))),
        visitors: new Map(rows.map((r) => [profileKey(r.account_id, r.id), profileFromRow(r)])),
      };
    },
    async write(plan: CollectedPlan) {
      const c = plan.collected;
      if (c.length === 0) return;
      const recorded = await tx.$executeRawUnsafe(SQL.recordIds, c.map((x) => x.visitorId), c.map((x) => x.id), c.map((x) => x.at));
      if (recorded !== c.length) throw new ConcurrentApplyError('collected ids');
      const fresh = plan.profiles.filter((p) => p.isNew);
      const known = plan.profiles.filter((p) => !p.isNew);
      if (fresh.length > 0 && (await tx.$executeRawUnsafe(SQL.insertProfiles, ...profileColumns(fresh))) !== fresh.length) throw new ConcurrentApplyError('new visitors');
      if (known.length > 0) await tx.$executeRawUnsafe(SQL.updateProfiles, ...profileColumns(known));
      const s = plan.sessions;
      if (s.length > 0) {
        await tx.$executeRawUnsafe(
          SQL.sessions,
          s.map((x) => x.accountId),
          s.map((x) => x.visitorId),
          s.map((x) => x.number),
          s.map((x) => x.siteId),
          s.map((x) => x.startedAt),
          s.map((x) => x.lastAt),
          s.map((x) => x.pageViews),
          s.map((x) => x.landingPath),
          s.map((x) => x.referrer),
          s.map((x) => x.utmCampaign),
        );
      }
      const l = plan.links;
      if (l.length > 0) {
        await tx.$executeRawUnsafe(SQL.links, l.map((x) => x.accountId), l.map((x) => x.visitorId), l.map((x) => x.siteId), l.map((x) => x.email), l.map((x) => x.method), l.map((x) => x.at), l.map((x) => x.sourceId), l.map((x) => x.sourcePath));
      }
      const h = plan.siteHours;
      if (h.length > 0) {
        await tx.$executeRawUnsafe(SQL.siteHours, h.map((x) => x.siteId), h.map((x) => x.hour), h.map((x) => x.accountId), h.map((x) => x.pageViews), h.map((x) => x.visitors), h.map((x) => x.bots));
      }
    },
  };
}

export function collectedStore(db: Db): CollectedStore {
  return {
    inTransaction: (fn) => db.$transaction((tx) => fn(transaction(tx)), TRANSACTION),
  };
}
