// The collected store on Postgres: a chunk is one transaction of set-based statements, each one
// round trip whatever the chunk's size (arrays bound as parameters, unnest on the server):
//   load: the chunk's ids already collected (one SELECT) and its visitors' profiles, locked in key
//         order so concurrent chunks of one visitor queue instead of overwriting (one SELECT);
//         then, each only when the chunk needs it, its accounts' page rules, its visitors' firings,
//         the erasures of its identify emails (by keyed hash) and the links of its redelivered
//         identifies (what its addresses say comes from the replica's memory: ip-data.ts);
//   write: the new ids (one INSERT), denials' links deleted, new profiles (one INSERT) and changed ones (one UPDATE),
//         sessions (one upsert adding page views), identity links and page-rule firings (one INSERT
//         each), the companies' first visits in their window (one INSERT … RETURNING, and for
//         redelivered visits one SELECT of the rows they made), and last the per-site hour counters
//         (one upsert in (site, hour) order).
// An insert that meets a row another transaction wrote meanwhile (ids, a new visitor) aborts the
// chunk with ConcurrentApplyError: retried, it finds that work done.
import { columns } from '@glimpse/db';
import type { Db } from '@glimpse/db/visitors';
import type { Utm } from '@glimpse/messaging';
import { ConcurrentApplyError, type ChunkRequest, type ChunkState, type CollectedStore, type CollectedTransaction } from '../domain/apply-collected.js';
import {
  collectedKey,
  erasureKey,
  linkKey,
  profileKey,
  type CollectedPlan,
  type CompanyVisitWrite,
  type ConsentState,
  type FiringRow,
  type PageEntry,
  type PageRule,
  type VisitorState,
} from '../domain/plan-collected.js';
import { erasureHash } from './erasure-hash.js';
import type { IntentContribution, IntentSettings } from '../domain/intent-score.js';

/** Prisma's interactive transaction ends after 5 s by default: a big chunk on a loaded machine needs longer. */
const TRANSACTION = { maxWait: 10_000, timeout: 30_000 };

type Tx = Pick<Db, '$queryRawUnsafe' | '$executeRawUnsafe'>;

export const PROFILE_COLUMNS = `account_id::text AS account_id, id, site_id::text AS site_id, first_seen, last_seen, page_views, sessions, engaged_seconds,
  last_pages::text AS last_pages, first_referrer, first_utm::text AS first_utm, session_started_at, session_last_at, session_campaign,
  email, identified_method, identified_at, identified_confidence, consent, consent_at, cookieless, company::text AS company, company_at,
  network::text AS network, location::text AS location, company_key, identified_verified,
  intent_raw, intent_at, intent_rank, intent_contributions::text AS intent_contributions`;

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
  identified_confidence: number | null;
  consent: string;
  consent_at: Date | null;
  cookieless: boolean;
  company: string | null;
  company_at: Date | null;
  network: string | null;
  location: string | null;
  company_key: string | null;
  identified_verified: boolean | null;
  intent_raw: number;
  intent_at: Date | null;
  intent_rank: number | null;
  intent_contributions: string;
}

const PROFILE_UNNEST = `unnest($1::uuid[], $2::text[], $3::uuid[], $4::timestamptz[], $5::timestamptz[], $6::int[], $7::int[], $8::int[], $9::text[], $10::text[], $11::text[],
      $12::timestamptz[], $13::timestamptz[], $14::text[], $15::text[], $16::text[], $17::timestamptz[], $18::float8[], $19::text[], $20::timestamptz[], $21::bool[], $22::text[], $23::timestamptz[],
      $24::text[], $25::text[], $26::text[], $27::bool[], $28::float8[], $29::timestamptz[], $30::float8[], $31::text[])
      AS u(account_id, id, site_id, first_seen, last_seen, page_views, sessions, engaged_seconds, last_pages, first_referrer, first_utm,
        session_started_at, session_last_at, session_campaign, email, identified_method, identified_at, identified_confidence, consent, consent_at, cookieless, company, company_at,
        network, location, company_key, identified_verified, intent_raw, intent_at, intent_rank, intent_contributions)`;

const SQL = {
  collected: `SELECT c.account_id::text AS account_id, c.visitor_id, c.id FROM collected_messages c
    JOIN (SELECT DISTINCT * FROM unnest($1::uuid[], $2::text[], $3::text[])) AS u(account_id, visitor_id, id) USING (account_id, visitor_id, id)`,
  profiles: `SELECT ${PROFILE_COLUMNS} FROM visitor_profiles p
    WHERE (p.account_id, p.id) IN (SELECT * FROM unnest($1::uuid[], $2::text[]))
    ORDER BY p.account_id, p.id FOR UPDATE`,
  recordIds: `INSERT INTO collected_messages (account_id, visitor_id, id, at)
    SELECT * FROM unnest($1::uuid[], $2::text[], $3::text[], $4::timestamptz[]) ON CONFLICT DO NOTHING`,
  insertProfiles: `INSERT INTO visitor_profiles (account_id, id, site_id, first_seen, last_seen, page_views, sessions, engaged_seconds,
      last_pages, first_referrer, first_utm, session_started_at, session_last_at, session_campaign, email, identified_method, identified_at,
      identified_confidence, consent, consent_at, cookieless, company, company_at, network, location, company_key, identified_verified,
      intent_raw, intent_at, intent_rank, intent_contributions)
    SELECT u.account_id, u.id, u.site_id, u.first_seen, u.last_seen, u.page_views, u.sessions, u.engaged_seconds,
      u.last_pages::jsonb, u.first_referrer, u.first_utm::jsonb, u.session_started_at, u.session_last_at, u.session_campaign, u.email, u.identified_method, u.identified_at,
      u.identified_confidence, u.consent, u.consent_at, u.cookieless, u.company::jsonb, u.company_at,
      u.network::jsonb, u.location::jsonb, u.company_key, u.identified_verified,
      u.intent_raw, u.intent_at, u.intent_rank, u.intent_contributions::jsonb
    FROM ${PROFILE_UNNEST}
    ON CONFLICT (account_id, id) DO NOTHING`,
  updateProfiles: `UPDATE visitor_profiles p SET first_seen = u.first_seen, last_seen = u.last_seen, page_views = u.page_views, sessions = u.sessions,
      engaged_seconds = u.engaged_seconds, last_pages = u.last_pages::jsonb, first_referrer = u.first_referrer, first_utm = u.first_utm::jsonb,
      session_started_at = u.session_started_at, session_last_at = u.session_last_at, session_campaign = u.session_campaign,
      email = u.email, identified_method = u.identified_method, identified_at = u.identified_at, identified_confidence = u.identified_confidence,
      consent = u.consent, consent_at = u.consent_at, cookieless = u.cookieless, company = u.company::jsonb, company_at = u.company_at,
      network = u.network::jsonb, location = u.location::jsonb, company_key = u.company_key,
      identified_verified = u.identified_verified, intent_raw = u.intent_raw, intent_at = u.intent_at, intent_rank = u.intent_rank,
      intent_contributions = u.intent_contributions::jsonb, updated_at = now()
    FROM ${PROFILE_UNNEST}
    WHERE p.account_id = u.account_id AND p.id = u.id`,
  sessions: `INSERT INTO visitor_sessions (account_id, visitor_id, number, site_id, started_at, last_at, page_views, landing_path, referrer, utm_campaign)
    SELECT * FROM unnest($1::uuid[], $2::text[], $3::int[], $4::uuid[], $5::timestamptz[], $6::timestamptz[], $7::int[], $8::text[], $9::text[], $10::text[])
    ON CONFLICT (account_id, visitor_id, number) DO UPDATE SET
      last_at = GREATEST(visitor_sessions.last_at, EXCLUDED.last_at), page_views = visitor_sessions.page_views + EXCLUDED.page_views`,
  links: `INSERT INTO identity_links (account_id, visitor_id, site_id, email, method, confidence, at, source_id, source_path, verified)
    SELECT * FROM unnest($1::uuid[], $2::text[], $3::uuid[], $4::text[], $5::text[], $6::float8[], $7::timestamptz[], $8::text[], $9::text[], $10::bool[])
    ON CONFLICT (account_id, visitor_id, source_id) DO NOTHING`,
  // Each account's intent settings (null without a row: the defaults) with its page rules, in one round trip.
  rules: `SELECT a.account_id::text AS account_id, s.half_life_days, s.page_view_weight, s.session_weight, s.engaged_minute_weight,
      s.event_weights::text AS event_weights,
      (SELECT coalesce(json_agg(json_build_object('id', r.id, 'pattern', r.pattern, 'event', r.event, 'weight', r.weight) ORDER BY r.created_at, r.id), '[]')::text
       FROM page_rules r WHERE r.account_id = a.account_id) AS rules
    FROM unnest($1::uuid[]) AS a(account_id) LEFT JOIN intent_settings s ON s.account_id = a.account_id`,
  // The firings of the visitors' current sessions (and later), and any from the chunk's first time on (a redelivery's).
  firings: `SELECT f.account_id::text AS account_id, f.visitor_id, f.session_number, f.rule_id::text AS rule_id, f.at
    FROM page_rule_firings f JOIN unnest($1::uuid[], $2::text[]) AS u(account_id, visitor_id) ON f.account_id = u.account_id AND f.visitor_id = u.visitor_id
    LEFT JOIN visitor_profiles p ON p.account_id = f.account_id AND p.id = f.visitor_id
    WHERE f.session_number >= coalesce(p.sessions, 0) OR f.at >= $3::timestamptz`,
  erasures: `SELECT account_id::text AS account_id, email_hash, erased_at FROM visitor_erasures
    WHERE (account_id, email_hash) IN (SELECT * FROM unnest($1::uuid[], $2::text[]))`,
  existingLinks: `SELECT account_id::text AS account_id, visitor_id, source_id FROM identity_links
    WHERE (account_id, visitor_id, source_id) IN (SELECT * FROM unnest($1::uuid[], $2::text[], $3::text[]))`,
  unlink: `DELETE FROM identity_links l USING unnest($1::uuid[], $2::text[]) AS u(account_id, visitor_id) WHERE l.account_id = u.account_id AND l.visitor_id = u.visitor_id`,
  firingsInsert: `INSERT INTO page_rule_firings (account_id, visitor_id, session_number, rule_id, at)
    SELECT * FROM unnest($1::uuid[], $2::text[], $3::int[], $4::uuid[], $5::timestamptz[]) ON CONFLICT DO NOTHING`,
  companyVisits: `INSERT INTO company_visits (account_id, site_id, company, window_start, visitor_id, at)
    SELECT * FROM unnest($1::uuid[], $2::uuid[], $3::text[], $4::timestamptz[], $5::text[], $6::timestamptz[])
    ON CONFLICT DO NOTHING RETURNING account_id::text AS account_id, site_id::text AS site_id, company, window_start, visitor_id, at`,
  // A redelivered visit is announced again only if it made the row (its send may not have gone out).
  companyVisitsMade: `SELECT c.account_id::text AS account_id, c.site_id::text AS site_id, c.company, c.window_start, c.visitor_id, c.at FROM company_visits c
    JOIN unnest($1::uuid[], $2::uuid[], $3::text[], $4::timestamptz[], $5::text[], $6::timestamptz[]) AS u(account_id, site_id, company, window_start, visitor_id, at)
    ON c.account_id = u.account_id AND c.site_id = u.site_id AND c.company = u.company AND c.window_start = u.window_start AND c.visitor_id = u.visitor_id AND c.at = u.at`,
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
    identifiedConfidence: r.identified_confidence,
    consent: r.consent as ConsentState,
    consentAt: isoOrNull(r.consent_at),
    cookieless: r.cookieless,
    company: r.company === null ? null : (JSON.parse(r.company) as VisitorState['company']),
    companyAt: isoOrNull(r.company_at),
    network: r.network === null ? null : (JSON.parse(r.network) as VisitorState['network']),
    location: r.location === null ? null : (JSON.parse(r.location) as VisitorState['location']),
    companyKey: r.company_key,
    identifiedVerified: r.identified_verified,
    intentRaw: r.intent_raw,
    intentAt: isoOrNull(r.intent_at),
    intentRank: r.intent_rank,
    intentContributions: JSON.parse(r.intent_contributions) as IntentContribution[],
  };
}

function profileColumns(p: readonly VisitorState[]): unknown[] {
  return columns(p, [
    'accountId',
    'visitorId',
    'siteId',
    'firstSeen',
    'lastSeen',
    'pageViews',
    'sessions',
    'engagedSeconds',
    (x) => JSON.stringify(x.lastPages),
    'firstReferrer',
    (x) => (x.firstUtm === null ? null : JSON.stringify(x.firstUtm)),
    'sessionStartedAt',
    'sessionLastAt',
    'sessionCampaign',
    'email',
    'identifiedMethod',
    'identifiedAt',
    'identifiedConfidence',
    'consent',
    'consentAt',
    'cookieless',
    (x) => (x.company === null ? null : JSON.stringify(x.company)),
    'companyAt',
    (x) => (x.network === null ? null : JSON.stringify(x.network)),
    (x) => (x.location === null ? null : JSON.stringify(x.location)),
    'companyKey',
    'identifiedVerified',
    'intentRaw',
    'intentAt',
    'intentRank',
    (x) => JSON.stringify(x.intentContributions),
  ]);
}

/** An account's intent_settings row with its page rules' weights (rules: {id: weight} as JSON text); every column null for an account without one. */
export type SettingsRow = {
  account_id: string;
  half_life_days: number | null;
  page_view_weight: number;
  session_weight: number;
  engaged_minute_weight: number;
  event_weights: string;
  rules: string;
};

/** An intent_settings row as the scoring reads it (also the re-scorer's and the answers'). */
export function intentSettingsFromRow(r: Omit<SettingsRow, 'account_id' | 'rules' | 'half_life_days'> & { half_life_days: number }): IntentSettings {
  return {
    halfLifeDays: r.half_life_days,
    pageViewWeight: r.page_view_weight,
    sessionWeight: r.session_weight,
    engagedMinuteWeight: r.engaged_minute_weight,
    eventWeights: JSON.parse(r.event_weights) as Record<string, number>,
  };
}

async function loadRules(
  tx: Tx,
  request: ChunkRequest,
  visitors: ChunkRequest['visitors'],
): Promise<{ rules: PageRule[]; firings: FiringRow[]; intent: Map<string, IntentSettings> }> {
  const intent = new Map<string, IntentSettings>();
  if (request.accounts.length === 0) return { rules: [], firings: [], intent };
  const rows = await tx.$queryRawUnsafe<SettingsRow[]>(SQL.rules, request.accounts);
  const rules: PageRule[] = [];
  for (const r of rows) {
    if (r.half_life_days !== null) intent.set(r.account_id, intentSettingsFromRow({ ...r, half_life_days: r.half_life_days }));
    for (const rule of JSON.parse(r.rules) as { id: string; pattern: string; event: string | null; weight: number }[])
      rules.push({ ...rule, accountId: r.account_id });
  }
  // Only rules with an event fire (and have firings to load); the others only score.
  const firing = rules.filter((r) => r.event !== null);
  if (firing.length === 0 || visitors.length === 0) return { rules, firings: [], intent };
  const ruled = visitors.filter((v) => firing.some((r) => r.accountId === v.accountId));
  if (ruled.length === 0) return { rules, firings: [], intent };
  const fired = await tx.$queryRawUnsafe<{ account_id: string; visitor_id: string; session_number: number; rule_id: string; at: Date }[]>(
    SQL.firings,
    ...columns(ruled, ['accountId', 'visitorId']),
    request.since,
  );
  return {
    rules,
    intent,
    firings: fired.map((f) => ({
      accountId: f.account_id,
      visitorId: f.visitor_id,
      sessionNumber: f.session_number,
      ruleId: f.rule_id,
      at: new Date(f.at).toISOString(),
    })),
  };
}

async function loadErasures(tx: Tx, erasureSecret: string, identifies: ChunkRequest['identifies']): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  if (identifies.length === 0) return out;
  const byHash = new Map<string, string>();
  for (const i of identifies) byHash.set(`${i.accountId}\n${erasureHash(erasureSecret, i.accountId, i.email)}`, erasureKey(i.accountId, i.email));
  const keys = [...byHash.keys()].map((k) => k.split('\n') as [string, string]);
  const rows = await tx.$queryRawUnsafe<{ account_id: string; email_hash: string; erased_at: Date }[]>(
    SQL.erasures,
    keys.map((k) => k[0]),
    keys.map((k) => k[1]),
  );
  for (const r of rows) {
    const key = byHash.get(`${r.account_id}\n${r.email_hash}`);
    if (key) out.set(key, new Date(r.erased_at).toISOString());
  }
  return out;
}

type CompanyVisitRow = { account_id: string; site_id: string; company: string; window_start: Date; visitor_id: string; at: Date };

const visitFromRow = (r: CompanyVisitRow, redelivered: boolean): CompanyVisitWrite => ({
  accountId: r.account_id,
  siteId: r.site_id,
  company: r.company,
  windowStart: new Date(r.window_start).toISOString(),
  visitorId: r.visitor_id,
  at: new Date(r.at).toISOString(),
  redelivered,
});

/** The first visits the plan makes (inserted now), and the redelivered ones whose row this very visit made. */
async function writeCompanyVisits(tx: Tx, visits: readonly CompanyVisitWrite[]): Promise<CompanyVisitWrite[]> {
  const cols = ['accountId', 'siteId', 'company', 'windowStart', 'visitorId', 'at'] as const;
  const fresh = visits.filter((v) => !v.redelivered);
  const again = visits.filter((v) => v.redelivered);
  const made = fresh.length === 0 ? [] : await tx.$queryRawUnsafe<CompanyVisitRow[]>(SQL.companyVisits, ...columns(fresh, [...cols]));
  const repeated = again.length === 0 ? [] : await tx.$queryRawUnsafe<CompanyVisitRow[]>(SQL.companyVisitsMade, ...columns(again, [...cols]));
  return [...made.map((r) => visitFromRow(r, false)), ...repeated.map((r) => visitFromRow(r, true))];
}

/** What a chunk needs to be planned: its ids seen, its visitors' profiles, the rules, scores' settings, erasures and existing links. */
async function loadChunk(tx: Tx, erasureSecret: string, request: ChunkRequest): Promise<ChunkState> {
  const { visitors, ids } = request;
  const found = await tx.$queryRawUnsafe<{ account_id: string; visitor_id: string; id: string }[]>(
    SQL.collected,
    ...columns(ids, ['accountId', 'visitorId', 'id']),
  );
  const rows = visitors.length === 0 ? [] : await tx.$queryRawUnsafe<ProfileRow[]>(SQL.profiles, ...columns(visitors, ['accountId', 'visitorId']));
  const collected = new Set(found.map((r) => collectedKey(r.account_id, r.visitor_id, r.id)));
  const { rules, firings, intent } = await loadRules(tx, request, visitors);
  const erasures = await loadErasures(tx, erasureSecret, request.identifies);
  // Redelivered identifies: those whose link exists announce it again.
  const again = request.identifies.filter((i) => collected.has(collectedKey(i.accountId, i.visitorId, i.id)));
  const linked =
    again.length === 0
      ? []
      : await tx.$queryRawUnsafe<{ account_id: string; visitor_id: string; source_id: string }[]>(
          SQL.existingLinks,
          ...columns(again, ['accountId', 'visitorId', 'id']),
        );
  return {
    collected,
    visitors: new Map(rows.map((r) => [profileKey(r.account_id, r.id), profileFromRow(r)])),
    rules,
    firings,
    intent,
    erasures,
    links: new Set(linked.map((l) => linkKey(l.account_id, l.visitor_id, l.source_id))),
  };
}

/** The chunk's ids (all of them new, or another transaction got there first), its unlinks, and its profiles, new and changed. */
async function writeIdsAndProfiles(tx: Tx, plan: CollectedPlan): Promise<void> {
  const c = plan.collected;
  const recorded = c.length === 0 ? 0 : await tx.$executeRawUnsafe(SQL.recordIds, ...columns(c, ['accountId', 'visitorId', 'id', 'at']));
  if (recorded !== c.length) throw new ConcurrentApplyError('collected ids');
  const u = plan.unlinks;
  if (u.length > 0) await tx.$executeRawUnsafe(SQL.unlink, ...columns(u, ['accountId', 'visitorId']));
  const fresh = plan.profiles.filter((p) => p.isNew);
  const known = plan.profiles.filter((p) => !p.isNew);
  if (fresh.length > 0 && (await tx.$executeRawUnsafe(SQL.insertProfiles, ...profileColumns(fresh))) !== fresh.length)
    throw new ConcurrentApplyError('new visitors');
  if (known.length > 0) await tx.$executeRawUnsafe(SQL.updateProfiles, ...profileColumns(known));
}

/** The plan's writes in order; answers the company visits this chunk made (or made on a first delivery). */
async function writePlan(tx: Tx, plan: CollectedPlan): Promise<CompanyVisitWrite[]> {
  if (plan.collected.length === 0 && plan.companyVisits.length === 0) return [];
  await writeIdsAndProfiles(tx, plan);
  const s = plan.sessions;
  if (s.length > 0) {
    await tx.$executeRawUnsafe(
      SQL.sessions,
      ...columns(s, ['accountId', 'visitorId', 'number', 'siteId', 'startedAt', 'lastAt', 'pageViews', 'landingPath', 'referrer', 'utmCampaign']),
    );
  }
  const l = plan.links;
  if (l.length > 0) {
    await tx.$executeRawUnsafe(
      SQL.links,
      ...columns(l, ['accountId', 'visitorId', 'siteId', 'email', 'method', 'confidence', 'at', 'sourceId', 'sourcePath', 'verified']),
    );
  }
  const f = plan.firings;
  if (f.length > 0) await tx.$executeRawUnsafe(SQL.firingsInsert, ...columns(f, ['accountId', 'visitorId', 'sessionNumber', 'ruleId', 'at']));
  const visited = await writeCompanyVisits(tx, plan.companyVisits);
  const h = plan.siteHours;
  if (h.length > 0) {
    await tx.$executeRawUnsafe(SQL.siteHours, ...columns(h, ['siteId', 'hour', 'accountId', 'pageViews', 'visitors', 'bots']));
  }
  return visited;
}

function transaction(tx: Tx, erasureSecret: string): CollectedTransaction {
  return {
    load: (request) => loadChunk(tx, erasureSecret, request),
    write: (plan) => writePlan(tx, plan),
  };
}

export function collectedStore(db: Db, { erasureSecret }: { erasureSecret: string }): CollectedStore {
  return {
    inTransaction: (fn) => db.$transaction((tx) => fn(transaction(tx, erasureSecret)), TRANSACTION),
  };
}
