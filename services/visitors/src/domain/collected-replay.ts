// The tables a plan writes, kept in memory with the same rules as the SQL (profiles replaced, a
// session's page views added and last_at raised, links and ids inserted once, hours added): the
// reference the planner's tests and the crash test replay messages into, one by one.
import { collectedKey, planCollected, profileKey, type CollectedPlan, type IdentityLinkWrite, type SessionWrite, type SiteHourDelta, type TrackForward, type VisitorState } from './plan-collected.js';
import type { Collected } from '@glimpse/messaging';

export interface ReplayTables {
  profiles: Map<string, VisitorState>;
  sessions: Map<string, SessionWrite>;
  links: Map<string, IdentityLinkWrite>;
  hours: Map<string, SiteHourDelta>;
  collected: Set<string>;
  /** First sends only (redelivered ones are the same events again). */
  forwards: TrackForward[];
}

export function emptyTables(): ReplayTables {
  return { profiles: new Map(), sessions: new Map(), links: new Map(), hours: new Map(), collected: new Set(), forwards: [] };
}

export function applyPlan(t: ReplayTables, plan: CollectedPlan): void {
  for (const { isNew: _isNew, ...p } of plan.profiles) t.profiles.set(profileKey(p.accountId, p.visitorId), p);
  for (const s of plan.sessions) {
    const key = `${profileKey(s.accountId, s.visitorId)}\n${s.number}`;
    const row = t.sessions.get(key);
    if (!row) t.sessions.set(key, { ...s });
    else {
      row.pageViews += s.pageViews;
      if (Date.parse(s.lastAt) > Date.parse(row.lastAt)) row.lastAt = s.lastAt;
    }
  }
  for (const l of plan.links) {
    const key = `${profileKey(l.accountId, l.visitorId)}\n${l.sourceId}`;
    if (!t.links.has(key)) t.links.set(key, l);
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
  for (const c of plan.collected) t.collected.add(collectedKey(c.visitorId, c.id));
  t.forwards.push(...plan.forwards.filter((f) => !f.redelivered));
}

/** Plans one chunk against the tables (what the store's read would load) and applies it. */
export function applyChunk(t: ReplayTables, messages: readonly Collected[]): CollectedPlan {
  const plan = planCollected({ messages, visitors: t.profiles, collected: t.collected });
  applyPlan(t, plan);
  return plan;
}

/** Every message applied alone, in order. */
export function replayOneByOne(messages: readonly Collected[], t: ReplayTables = emptyTables()): ReplayTables {
  for (const m of messages) applyChunk(t, [m]);
  return t;
}
