// What a chunk of collected messages does, computed in memory from the state its read loaded (the
// profiles of its visitors and which of its ids were already collected): the messages are walked in
// offset order, each visitor's state carried from one message to the next, so the outcome is
// exactly that of applying them one by one. Pure: times come from the messages (receivedAt).
import { ENGAGED_SECONDS_MAX, type Collected, type CollectedMessage, type Utm } from '@glimpse/messaging';
import { trackEventId } from './track-event-id.js';

export const SESSION_IDLE_MS = 30 * 60 * 1000;
export const LAST_PAGES = 20;
/** The dedupe row of a bot message: it has no visitor, so its id is qualified by the site. */
export const BOT_VISITOR = 'bot';

export interface PageEntry {
  path: string;
  title?: string;
  at: string;
}

/** A visitor's profile row, as loaded before the chunk and as written after it. Times are ISO 8601. */
export interface VisitorState {
  accountId: string;
  visitorId: string;
  siteId: string;
  firstSeen: string;
  lastSeen: string;
  pageViews: number;
  sessions: number;
  engagedSeconds: number;
  /** Newest first, at most LAST_PAGES. */
  lastPages: PageEntry[];
  firstReferrer: string | null;
  firstUtm: Utm | null;
  sessionStartedAt: string | null;
  sessionLastAt: string | null;
  sessionCampaign: string | null;
  email: string | null;
  identifiedMethod: string | null;
  identifiedAt: string | null;
}

/** A profile to write: `isNew` when no row existed before the chunk (an insert that must not meet one). */
export interface ProfileWrite extends VisitorState {
  isNew: boolean;
}

/** One session's change: a new session's row, or an open one's extension (page views added, last_at raised). */
export interface SessionWrite {
  accountId: string;
  visitorId: string;
  number: number;
  siteId: string;
  startedAt: string;
  lastAt: string;
  pageViews: number;
  landingPath: string | null;
  referrer: string | null;
  utmCampaign: string | null;
}

export interface IdentityLinkWrite {
  accountId: string;
  visitorId: string;
  siteId: string;
  email: string;
  method: string;
  at: string;
  sourceId: string;
  sourcePath: string | null;
}

/** Increments of one (site, hour) row. */
export interface SiteHourDelta {
  siteId: string;
  hour: string;
  accountId: string;
  pageViews: number;
  visitors: number;
  bots: number;
}

export interface CollectedId {
  visitorId: string;
  id: string;
  at: string;
}

/** A track message of an identified visitor, to forward to events.inbound with the email it had then. */
export interface TrackForward {
  eventId: string;
  accountId: string;
  event: string;
  email: string;
  properties: Record<string, string | number | boolean>;
  receivedAt: string;
  /** Forwarded again for a message already collected (a redelivery after a crash before it was sent). */
  redelivered: boolean;
}

export interface CollectedPlan {
  profiles: ProfileWrite[];
  sessions: SessionWrite[];
  links: IdentityLinkWrite[];
  siteHours: SiteHourDelta[];
  collected: CollectedId[];
  forwards: TrackForward[];
  counts: { applied: number; duplicates: number; bots: number; tracksUnidentified: number };
}

export interface PlanCollectedInput {
  /** The chunk's valid messages, in offset order. */
  messages: readonly Collected[];
  /** Profiles before the chunk, by profileKey; a visitor never seen is missing. */
  visitors: ReadonlyMap<string, VisitorState>;
  /** The chunk's ids already collected before it, by collectedKey. */
  collected: ReadonlySet<string>;
}

export const profileKey = (accountId: string, visitorId: string) => `${accountId}\n${visitorId}`;
export const collectedKey = (visitorId: string, id: string) => `${visitorId}\n${id}`;

/** The dedupe row of any message: (visitor, id), a bot's (BOT_VISITOR, site:id). */
export function collectedRef(m: Collected): { visitorId: string; id: string } {
  return m.type === 'bot' ? { visitorId: BOT_VISITOR, id: `${m.siteId}:${m.id}` } : { visitorId: m.visitorId, id: m.id };
}

const iso = (at: string) => new Date(at).toISOString();
const ms = (at: string) => Date.parse(at);
const hourOf = (at: string) => {
  const d = new Date(at);
  d.setUTCMinutes(0, 0, 0);
  return d.toISOString();
};

/** An address without its query and fragment (the aggregates never keep either); null if it is no URL. */
export function withoutQuery(address: string | undefined): string | null {
  if (!address) return null;
  try {
    const u = new URL(address);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') return null;
    return `${u.origin}${u.pathname}`;
  } catch {
    return null;
  }
}

const cleanPath = (path: string) => path.replace(/[?#].*$/s, '') || '/';

function cleanUtm(utm: Utm | undefined): Utm | null {
  if (!utm) return null;
  const out: Utm = {};
  for (const k of ['source', 'medium', 'campaign', 'term', 'content'] as const) if (utm[k]) out[k] = utm[k];
  return Object.keys(out).length > 0 ? out : null;
}

function newProfile(m: CollectedMessage, at: string): VisitorState {
  return {
    accountId: m.accountId,
    visitorId: m.visitorId,
    siteId: m.siteId,
    firstSeen: at,
    lastSeen: at,
    pageViews: 0,
    sessions: 0,
    engagedSeconds: 0,
    lastPages: [],
    firstReferrer: null,
    firstUtm: null,
    sessionStartedAt: null,
    sessionLastAt: null,
    sessionCampaign: null,
    email: null,
    identifiedMethod: null,
    identifiedAt: null,
  };
}

/** The latest page view a visitor had (the newest `at` of its last pages), for the hour's distinct visitors. */
function lastPageViewAt(v: VisitorState): number {
  let last = -Infinity;
  for (const p of v.lastPages) last = Math.max(last, ms(p.at));
  return last;
}

export function planCollected({ messages, visitors, collected }: PlanCollectedInput): CollectedPlan {
  const state = new Map<string, { v: VisitorState; isNew: boolean }>();
  const sessions = new Map<string, SessionWrite>();
  const hours = new Map<string, SiteHourDelta>();
  const seen = new Set<string>();
  const plan: CollectedPlan = { profiles: [], sessions: [], links: [], siteHours: [], collected: [], forwards: [], counts: { applied: 0, duplicates: 0, bots: 0, tracksUnidentified: 0 } };

  const hourRow = (siteId: string, accountId: string, at: string) => {
    const hour = hourOf(at);
    const key = `${siteId}\n${hour}`;
    let row = hours.get(key);
    if (!row) hours.set(key, (row = { siteId, hour, accountId, pageViews: 0, visitors: 0, bots: 0 }));
    return row;
  };
  const visitorOf = (m: CollectedMessage, at: string) => {
    const key = profileKey(m.accountId, m.visitorId);
    let entry = state.get(key);
    if (!entry) {
      const before = visitors.get(key);
      entry = before ? { v: { ...before, lastPages: [...before.lastPages] }, isNew: false } : { v: newProfile(m, at), isNew: true };
      state.set(key, entry);
    }
    return entry.v;
  };
  const touchSession = (v: VisitorState, at: string, open: Omit<SessionWrite, 'accountId' | 'visitorId' | 'number' | 'startedAt' | 'lastAt' | 'pageViews'> | null, pageViews: number) => {
    if (open) {
      v.sessions += 1;
      v.sessionStartedAt = at;
      v.sessionLastAt = at;
      v.sessionCampaign = open.utmCampaign;
    } else if (v.sessionLastAt === null) return;
    else if (ms(at) > ms(v.sessionLastAt)) v.sessionLastAt = at;
    const key = `${profileKey(v.accountId, v.visitorId)}\n${v.sessions}`;
    const row = sessions.get(key);
    if (row) {
      row.pageViews += pageViews;
      row.lastAt = v.sessionLastAt!;
    } else {
      // An open session's row exists already: only page_views (added) and last_at (raised) count.
      const base = open ?? { siteId: v.siteId, landingPath: null, referrer: null, utmCampaign: v.sessionCampaign };
      sessions.set(key, { accountId: v.accountId, visitorId: v.visitorId, number: v.sessions, startedAt: v.sessionStartedAt!, lastAt: v.sessionLastAt!, pageViews, ...base });
    }
  };

  for (const m of messages) {
    const ref = collectedRef(m);
    const key = collectedKey(ref.visitorId, ref.id);
    const at = iso(m.receivedAt);
    if (seen.has(key) || collected.has(key)) {
      plan.counts.duplicates += 1;
      // A track already collected may not have reached events.inbound (a crash before the send): send it again, same
      // eventId, if the visitor was identified by its time (one dropped then, unidentified, stays dropped).
      if (!seen.has(key) && m.type === 'track') {
        const v = state.get(profileKey(m.accountId, m.visitorId))?.v ?? visitors.get(profileKey(m.accountId, m.visitorId));
        if (v?.email && v.identifiedAt !== null && ms(v.identifiedAt) <= ms(at)) plan.forwards.push(forward(m, v.email, at, true));
      }
      seen.add(key);
      continue;
    }
    seen.add(key);
    plan.collected.push({ ...ref, at });
    plan.counts.applied += 1;

    if (m.type === 'bot') {
      plan.counts.bots += 1;
      hourRow(m.siteId, m.accountId, at).bots += 1;
      continue;
    }
    const v = visitorOf(m, at);
    if (ms(at) < ms(v.firstSeen)) v.firstSeen = at;
    if (ms(at) > ms(v.lastSeen)) v.lastSeen = at;

    switch (m.type) {
      case 'pageview': {
        const path = cleanPath(m.path);
        const referrer = withoutQuery(m.referrer);
        const utm = cleanUtm(m.utm);
        const campaign = utm?.campaign ?? null;
        const row = hourRow(m.siteId, m.accountId, at);
        row.pageViews += 1;
        if (v.lastPages.length === 0 || hourOf(new Date(lastPageViewAt(v)).toISOString()) < hourOf(at)) row.visitors += 1;
        if (v.pageViews === 0) {
          v.firstReferrer = referrer;
          v.firstUtm = utm;
        }
        v.pageViews += 1;
        v.lastPages = [{ path, ...(m.title ? { title: m.title } : {}), at }, ...v.lastPages].slice(0, LAST_PAGES);
        const idle = v.sessionLastAt === null || ms(at) - ms(v.sessionLastAt) > SESSION_IDLE_MS;
        const newCampaign = campaign !== null && campaign !== v.sessionCampaign;
        touchSession(v, at, idle || newCampaign ? { siteId: m.siteId, landingPath: path, referrer, utmCampaign: campaign } : null, 1);
        break;
      }
      case 'engagement':
        v.engagedSeconds += Math.min(m.seconds, ENGAGED_SECONDS_MAX);
        touchSession(v, at, null, 0);
        break;
      case 'identify': {
        plan.links.push({ accountId: m.accountId, visitorId: m.visitorId, siteId: m.siteId, email: m.email, method: 'identify', at, sourceId: m.id, sourcePath: m.path ? cleanPath(m.path) : null });
        // The newest link wins (by its time, so a late identify does not undo a newer one).
        if (v.identifiedAt === null || ms(at) >= ms(v.identifiedAt)) Object.assign(v, { email: m.email, identifiedMethod: 'identify', identifiedAt: at });
        touchSession(v, at, null, 0);
        break;
      }
      case 'track':
        if (v.email) plan.forwards.push(forward(m, v.email, at, false));
        else plan.counts.tracksUnidentified += 1;
        touchSession(v, at, null, 0);
        break;
    }
  }

  plan.profiles = [...state.values()].map(({ v, isNew }) => ({ ...v, isNew }));
  plan.sessions = [...sessions.values()];
  // Sorted, so concurrent transactions take the shared rows' locks in one order.
  plan.siteHours = [...hours.values()].sort((a, b) => (a.siteId === b.siteId ? a.hour.localeCompare(b.hour) : a.siteId < b.siteId ? -1 : 1));
  return plan;
}

function forward(m: Extract<CollectedMessage, { type: 'track' }>, email: string, at: string, redelivered: boolean): TrackForward {
  return { eventId: trackEventId(m.siteId, m.visitorId, m.id), accountId: m.accountId, event: m.event, email, properties: m.properties, receivedAt: at, redelivered };
}
