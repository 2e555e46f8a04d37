// The page-view step of a chunk's plan: the site's hour, the visitor's pages and session, what its
// address says, its intent (the view, a new session, the weighted page rules it matched) and the
// page rules it fires as events.
import type { CollectedMessage } from '@glimpse/messaging';
import type { VisitorState } from './collected-records.js';
import { cleanPath, cleanUtm, firingKey, hourOf, ms, withoutQuery } from './collected-keys.js';
import { hasWorkflows, ruleForward } from './collected-sends.js';
import { hourRow, scoreView, touchSession, visitedBy, type CompiledRule, type PlanState } from './collected-state.js';
import { addContribution, ruleReason } from './intent-score.js';

export const SESSION_IDLE_MS = 30 * 60 * 1000;
export const LAST_PAGES = 20;

type PageView = Extract<CollectedMessage, { type: 'pageview' }>;

export function pageViewStep(s: PlanState, m: PageView, v: VisitorState, at: string): void {
  const path = cleanPath(m.path);
  const referrer = withoutQuery(m.referrer);
  const utm = cleanUtm(m.utm);
  const campaign = utm?.campaign ?? null;
  const row = hourRow(s, m.siteId, m.accountId, at);
  row.pageViews += 1;
  if (v.lastPages.length === 0 || hourOf(new Date(lastPageViewAt(v)).toISOString()) < hourOf(at)) row.visitors += 1;
  if (v.pageViews === 0) {
    v.firstReferrer = referrer;
    v.firstUtm = utm;
  }
  if (m.cookieless) v.cookieless = true;
  v.pageViews += 1;
  v.lastPages = [{ path, ...(m.title ? { title: m.title } : {}), at }, ...v.lastPages].slice(0, LAST_PAGES);
  const idle = v.sessionLastAt === null || ms(at) - ms(v.sessionLastAt) > SESSION_IDLE_MS;
  const newCampaign = campaign !== null && campaign !== v.sessionCampaign;
  touchSession(s, v, at, idle || newCampaign ? { siteId: m.siteId, landingPath: path, referrer, utmCampaign: campaign } : null, 1);
  locate(s, m, v, at);
  const matched = (s.rules.get(m.accountId) ?? []).filter((r) => r.matches(path));
  scoreView(v, at, idle || newCampaign);
  scoreRules(v, at, matched);
  fireRules(s, m, v, path, at, matched);
}

/** The latest page view a visitor had (the newest `at` of its last pages), for the hour's distinct visitors. */
function lastPageViewAt(v: VisitorState): number {
  let last = -Infinity;
  for (const p of v.lastPages) last = Math.max(last, ms(p.at));
  return last;
}

// What the address says (the address itself is never kept): the network and location of every
// visitor; the company of a business, education or government network, while no person is known
// and the visitor is not cookieless (a company is an identification).
function locate(s: PlanState, m: PageView, v: VisitorState, at: string): void {
  const info = m.ip ? s.input.networks?.get(m.ip) : undefined;
  if (info?.network) v.network = info.network;
  if (info?.location) v.location = info.location;
  if (info?.company && !v.cookieless && !v.email) Object.assign(v, { company: info.company, companyAt: at });
  visitedBy(s, m, v, at, false);
}

// A weighted rule scores once per session: not again while its last time is in the current session.
function scoreRules(v: VisitorState, at: string, matched: readonly CompiledRule[]): void {
  for (const rule of matched) {
    if (!((rule.weight ?? 0) > 0)) continue;
    const key = `rule:${rule.id}`;
    const start = v.sessionStartedAt;
    if (start !== null && v.intentContributions.some((c) => c.key === key && c.at >= start)) continue;
    addContribution(v.intentContributions, key, 1, at, ruleReason(rule.pattern));
  }
}

function fireRules(s: PlanState, m: PageView, v: VisitorState, path: string, at: string, matched: readonly CompiledRule[]): void {
  if (!v.email || v.cookieless) return;
  for (const rule of matched) {
    if (rule.event === null) continue;
    // Page rules are of the workflows add-on: no firing is recorded either, so with the add-on
    // back a later view of the same session fires.
    if (!hasWorkflows(m)) {
      s.plan.counts.withoutAddon += 1;
      return;
    }
    const key = firingKey(m.accountId, m.visitorId, v.sessions, rule.id);
    if (s.fired.has(key)) continue;
    s.fired.add(key);
    s.plan.firings.push({ accountId: m.accountId, visitorId: m.visitorId, sessionNumber: v.sessions, ruleId: rule.id, at });
    const firing = { accountId: m.accountId, visitorId: m.visitorId, session: v.sessions, email: v.email, path, at };
    s.plan.forwards.push(ruleForward({ ...rule, event: rule.event }, firing, false));
    s.plan.counts.rulesFired += 1;
  }
}
