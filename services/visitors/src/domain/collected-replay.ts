// The tables a plan writes, kept in memory with the same rules as the SQL (unlinks first,
// profiles replaced, a session's page views added and last_at raised, links, firings and ids
// inserted once, hours added): the reference the planner's tests and the crash test replay messages
// into, one by one. The world the store would load (page rules, address ranges, erasures) is given.
import {
  collectedKey,
  firingKey,
  linkKey,
  planCollected,
  profileKey,
  sessionKey,
  type CollectedPlan,
  type CompanyVisitWrite,
  type NetworkInfo,
  type FiringRow,
  type IdentifiedMessage,
  type IdentityLinkWrite,
  type PageRule,
  type SessionWrite,
  type SiteHourDelta,
  type TrackForward,
  type VisitorState,
} from './plan-collected.js';
import type { Collected } from '@glimpse/messaging';
import type { IntentSettings } from './intent-score.js';

export interface ReplayWorld {
  rules: PageRule[];
  /** The accounts' intent settings (the defaults for one missing). */
  intent: Map<string, IntentSettings>;
  /** What each address says (network, company, location). */
  networks: Map<string, NetworkInfo>;
  erasures: Map<string, string>;
}

export interface ReplayTables {
  profiles: Map<string, VisitorState>;
  sessions: Map<string, SessionWrite>;
  links: Map<string, IdentityLinkWrite>;
  firings: Map<string, FiringRow>;
  hours: Map<string, SiteHourDelta>;
  collected: Set<string>;
  /** First sends only (redelivered ones are the same events again). */
  forwards: TrackForward[];
  identified: IdentifiedMessage[];
  /** company_visits: the first visit of each company to a site in a window. */
  companyVisits: Map<string, CompanyVisitWrite>;
  world: ReplayWorld;
}

export function emptyTables(world: Partial<ReplayWorld> = {}): ReplayTables {
  return {
    profiles: new Map(),
    sessions: new Map(),
    links: new Map(),
    firings: new Map(),
    hours: new Map(),
    collected: new Set(),
    forwards: [],
    identified: [],
    companyVisits: new Map(),
    world: { rules: [], intent: new Map(), networks: new Map(), erasures: new Map(), ...world },
  };
}

function applyUnlinks(t: ReplayTables, plan: CollectedPlan): void {
  for (const u of plan.unlinks) for (const [key, l] of [...t.links]) if (l.accountId === u.accountId && l.visitorId === u.visitorId) t.links.delete(key);
}

export function applyPlan(t: ReplayTables, plan: CollectedPlan): void {
  applyUnlinks(t, plan);
  for (const { isNew: _isNew, ...p } of plan.profiles) t.profiles.set(profileKey(p.accountId, p.visitorId), p);
  for (const s of plan.sessions) {
    const key = sessionKey(s.accountId, s.visitorId, s.number);
    const row = t.sessions.get(key);
    if (!row) t.sessions.set(key, { ...s });
    else {
      row.pageViews += s.pageViews;
      if (Date.parse(s.lastAt) > Date.parse(row.lastAt)) row.lastAt = s.lastAt;
    }
  }
  for (const l of plan.links) {
    const key = linkKey(l.accountId, l.visitorId, l.sourceId);
    if (!t.links.has(key)) t.links.set(key, l);
  }
  for (const f of plan.firings) {
    const key = firingKey(f.accountId, f.visitorId, f.sessionNumber, f.ruleId);
    if (!t.firings.has(key)) t.firings.set(key, f);
  }
  for (const h of plan.siteHours) {
    const key = `${h.siteId}\n${h.hour}`;
    const row = t.hours.get(key);
    if (!row) t.hours.set(key, { ...h });
    else {
      row.pageViews += h.pageViews;
      row.visitors += h.visitors;
      row.bots += h.bots;
    }
  }
  for (const c of plan.collected) t.collected.add(collectedKey(c.accountId, c.visitorId, c.id));
  t.forwards.push(...plan.forwards.filter((f) => !f.redelivered));
  t.identified.push(...plan.identified.filter((i) => !i.redelivered));
  for (const c of plan.companyVisits) {
    const key = `${c.accountId}\n${c.siteId}\n${c.company}\n${c.windowStart}`;
    if (!c.redelivered && !t.companyVisits.has(key)) t.companyVisits.set(key, c);
  }
}

/** Plans one chunk against the tables (what the store's read would load) and applies it. */
export function applyChunk(t: ReplayTables, messages: readonly Collected[]): CollectedPlan {
  const plan = planCollected({
    messages,
    visitors: t.profiles,
    collected: t.collected,
    rules: t.world.rules,
    intent: t.world.intent,
    firings: [...t.firings.values()],
    networks: t.world.networks,
    erasures: t.world.erasures,
    links: new Set(t.links.keys()),
  });
  applyPlan(t, plan);
  return plan;
}

/** Every message applied alone, in order. */
export function replayOneByOne(messages: readonly Collected[], t: ReplayTables = emptyTables()): ReplayTables {
  for (const m of messages) applyChunk(t, [m]);
  return t;
}
