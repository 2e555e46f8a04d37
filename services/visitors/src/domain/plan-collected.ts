// What a chunk of collected messages does, computed in memory from the state its read loaded (the
// profiles of its visitors and which of its ids were already collected): the messages are walked in
// offset order, each visitor's state carried from one message to the next, so the outcome is
// exactly that of applying them one by one. Pure: times come from the messages (receivedAt).
import { ENGAGED_SECONDS_MAX, identificationConfidence, identifyVerified, type Collected, type CollectedMessage, type Utm } from '@glimpse/messaging';
import type {
  CollectedPlan,
  FiringRow,
  IdentifiedMessage,
  PageRule,
  PlanCollectedInput,
  SessionWrite,
  SiteHourDelta,
  TrackForward,
  VisitorState,
} from './collected-records.js';
import { companyKeyOf } from './company-key.js';
import { addContribution, DEFAULT_INTENT_SETTINGS, eventReason, intentStateOf, ruleReason, weightOf, type IntentWeights } from './intent-score.js';
import { compilePathGlob, type PathMatcher } from './page-rule-pattern.js';
import { identifiedEventId, pageRuleEventId, trackEventId } from './track-event-id.js';

export const SESSION_IDLE_MS = 30 * 60 * 1000;
export const LAST_PAGES = 20;
const DAY_MS = 24 * 3_600_000;
/** The dedupe row of a bot message: it has no visitor, so its id is qualified by the site. */
export const BOT_VISITOR = 'bot';

export type * from './collected-records.js';

export const profileKey = (accountId: string, visitorId: string) => `${accountId}\n${visitorId}`;
export const collectedKey = (accountId: string, visitorId: string, id: string) => `${accountId}\n${visitorId}\n${id}`;
export const erasureKey = (accountId: string, email: string) => `${accountId}\n${email}`;
export const linkKey = (accountId: string, visitorId: string, sourceId: string) => `${profileKey(accountId, visitorId)}\n${sourceId}`;
export const firingKey = (accountId: string, visitorId: string, session: number, ruleId: string) =>
  `${profileKey(accountId, visitorId)}\n${session}\n${ruleId}`;
export const sessionKey = (accountId: string, visitorId: string, number: number) => `${profileKey(accountId, visitorId)}\n${number}`;

/** The dedupe row of any message: (account, visitor, id), a bot's (account, BOT_VISITOR, site:id). */
export function collectedRef(m: Collected): { accountId: string; visitorId: string; id: string } {
  return m.type === 'bot'
    ? { accountId: m.accountId, visitorId: BOT_VISITOR, id: `${m.siteId}:${m.id}` }
    : { accountId: m.accountId, visitorId: m.visitorId, id: m.id };
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

/** The path without query or fragment: cut at the first '?' or '#' (a scan, not a regex). */
function cleanPath(path: string): string {
  const query = path.indexOf('?');
  const fragment = path.indexOf('#');
  const end = query < 0 ? fragment : fragment < 0 ? query : Math.min(query, fragment);
  return (end < 0 ? path : path.slice(0, end)) || '/';
}

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
    identifiedConfidence: null,
    identifiedVerified: null,
    consent: 'implied',
    consentAt: null,
    cookieless: false,
    company: null,
    companyAt: null,
    network: null,
    location: null,
    companyKey: null,
    intentRaw: 0,
    intentAt: null,
    intentRank: null,
    intentContributions: [],
  };
}

/** The latest page view a visitor had (the newest `at` of its last pages), for the hour's distinct visitors. */
function lastPageViewAt(v: VisitorState): number {
  let last = -Infinity;
  for (const p of v.lastPages) last = Math.max(last, ms(p.at));
  return last;
}

export function planCollected(input: PlanCollectedInput): CollectedPlan {
  const { messages, visitors, collected } = input;
  const state = new Map<string, { v: VisitorState; isNew: boolean }>();
  const sessions = new Map<string, SessionWrite>();
  const hours = new Map<string, SiteHourDelta>();
  const seen = new Set<string>();
  const rules = rulesByAccount(input.rules ?? []);
  const weights = new Map<string, IntentWeights>();
  const weightsOf = (accountId: string): IntentWeights => {
    let w = weights.get(accountId);
    if (!w) {
      const ruleWeights = new Map((rules.get(accountId) ?? []).map((r) => [r.id, r.weight ?? 0]));
      weights.set(accountId, (w = { ...(input.intent?.get(accountId) ?? DEFAULT_INTENT_SETTINGS), ruleWeights }));
    }
    return w;
  };
  const fired = new Set<string>();
  const firedAt = new Map<string, FiringRow>();
  for (const f of input.firings ?? []) {
    fired.add(firingKey(f.accountId, f.visitorId, f.sessionNumber, f.ruleId));
    firedAt.set(`${profileKey(f.accountId, f.visitorId)}\n${f.ruleId}\n${iso(f.at)}`, f);
  }
  const plan: CollectedPlan = {
    unlinks: [],
    profiles: [],
    sessions: [],
    links: [],
    firings: [],
    siteHours: [],
    collected: [],
    forwards: [],
    identified: [],
    companyVisits: [],
    counts: { applied: 0, duplicates: 0, bots: 0, tracksUnidentified: 0, identifiesDropped: 0, rulesFired: 0, withoutAddon: 0 },
  };

  const hourRow = (siteId: string, accountId: string, at: string) => {
    const hour = hourOf(at);
    const key = `${siteId}\n${hour}`;
    let row = hours.get(key);
    if (!row) hours.set(key, (row = { siteId, hour, accountId, pageViews: 0, visitors: 0, bots: 0 }));
    return row;
  };
  const known = (accountId: string, visitorId: string): VisitorState | undefined => {
    const key = profileKey(accountId, visitorId);
    return state.get(key)?.v ?? visitors.get(key);
  };
  const visitorOf = (m: CollectedMessage, at: string) => {
    const key = profileKey(m.accountId, m.visitorId);
    let entry = state.get(key);
    if (!entry) {
      const before = visitors.get(key);
      entry = before
        ? { v: { ...before, lastPages: [...before.lastPages], intentContributions: before.intentContributions.map((c) => ({ ...c })) }, isNew: false }
        : { v: newProfile(m, at), isNew: true };
      state.set(key, entry);
    }
    return entry.v;
  };
  const touchSession = (
    v: VisitorState,
    at: string,
    open: Omit<SessionWrite, 'accountId' | 'visitorId' | 'number' | 'startedAt' | 'lastAt' | 'pageViews'> | null,
    pageViews: number,
  ) => {
    if (open) {
      v.sessions += 1;
      v.sessionStartedAt = at;
      v.sessionLastAt = at;
      v.sessionCampaign = open.utmCampaign;
    } else if (v.sessionLastAt === null) return;
    else if (ms(at) > ms(v.sessionLastAt)) v.sessionLastAt = at;
    const key = sessionKey(v.accountId, v.visitorId, v.sessions);
    const row = sessions.get(key);
    if (row) {
      row.pageViews += pageViews;
      row.lastAt = v.sessionLastAt!;
    } else {
      // An open session's row exists already: only page_views (added) and last_at (raised) count.
      const base = open ?? { siteId: v.siteId, landingPath: null, referrer: null, utmCampaign: v.sessionCampaign };
      sessions.set(key, {
        accountId: v.accountId,
        visitorId: v.visitorId,
        number: v.sessions,
        startedAt: v.sessionStartedAt!,
        lastAt: v.sessionLastAt!,
        pageViews,
        ...base,
      });
    }
  };
  const fireRules = (m: Extract<CollectedMessage, { type: 'pageview' }>, v: VisitorState, path: string, at: string, matched: readonly CompiledRule[]) => {
    if (!v.email || v.cookieless) return;
    for (const rule of matched) {
      if (rule.event === null) continue;
      // Page rules are of the workflows add-on: no firing is recorded either, so with the add-on
      // back a later view of the same session fires.
      if (!hasWorkflows(m)) {
        plan.counts.withoutAddon += 1;
        return;
      }
      const key = firingKey(m.accountId, m.visitorId, v.sessions, rule.id);
      if (fired.has(key)) continue;
      fired.add(key);
      plan.firings.push({ accountId: m.accountId, visitorId: m.visitorId, sessionNumber: v.sessions, ruleId: rule.id, at });
      plan.forwards.push(ruleForward({ ...rule, event: rule.event }, m.accountId, m.visitorId, v.sessions, v.email, path, at, false));
      plan.counts.rulesFired += 1;
    }
  };
  // Intent: what the visitor did, in message time (contributions merge per key and UTC day).
  const scoreView = (v: VisitorState, at: string, opened: boolean) => {
    addContribution(v.intentContributions, 'page_view', 1, at);
    if (opened) addContribution(v.intentContributions, 'session', 1, at);
  };
  // A weighted rule scores once per session: not again while its last time is in the current session.
  const scoreRules = (v: VisitorState, at: string, matched: readonly CompiledRule[]) => {
    for (const rule of matched) {
      if (!((rule.weight ?? 0) > 0)) continue;
      const key = `rule:${rule.id}`;
      const start = v.sessionStartedAt;
      if (start !== null && v.intentContributions.some((c) => c.key === key && c.at >= start)) continue;
      addContribution(v.intentContributions, key, 1, at, ruleReason(rule.pattern));
    }
  };
  // What the address says (the address itself is never kept): the network and location of every
  // visitor; the company of a business, education or government network, while no person is known
  // and the visitor is not cookieless (a company is an identification).
  const locate = (m: Extract<CollectedMessage, { type: 'pageview' }>, v: VisitorState, at: string) => {
    const info = m.ip ? input.networks?.get(m.ip) : undefined;
    if (info?.network) v.network = info.network;
    if (info?.location) v.location = info.location;
    if (info?.company && !v.cookieless && !v.email) Object.assign(v, { company: info.company, companyAt: at });
    visitedBy(m, v, at, false);
  };
  const windowMs = input.companyWindowMs ?? DAY_MS;
  const announced = new Set<string>();
  const visitedBy = (m: CollectedMessage, v: VisitorState, at: string, redelivered: boolean) => {
    const company = companyKeyOf(v);
    if (company === null || v.cookieless) return;
    const windowStart = new Date(Math.floor(ms(at) / windowMs) * windowMs).toISOString();
    const key = `${profileKey(m.accountId, m.siteId)}\n${company}\n${windowStart}`;
    if (announced.has(key)) return;
    announced.add(key);
    plan.companyVisits.push({ accountId: m.accountId, siteId: m.siteId, company, windowStart, visitorId: m.visitorId, at, redelivered });
  };
  const redeliver = (m: CollectedMessage, at: string) => {
    const v = known(m.accountId, m.visitorId);
    if (m.type === 'pageview' && v) visitedBy(m, v, at, true);
    if (m.type === 'track') {
      // Sent again, same eventId, if the visitor was identified by its time (one dropped then, unidentified, stays dropped).
      if (hasWorkflows(m) && v?.email && v.identifiedAt !== null && ms(v.identifiedAt) <= ms(at)) plan.forwards.push(forward(m, v.email, at, true));
    } else if (m.type === 'pageview' && v?.email) {
      for (const rule of rules.get(m.accountId) ?? []) {
        const f = firedAt.get(`${profileKey(m.accountId, m.visitorId)}\n${rule.id}\n${at}`);
        if (f && rule.event !== null)
          plan.forwards.push(ruleForward({ ...rule, event: rule.event }, m.accountId, m.visitorId, f.sessionNumber, v.email, cleanPath(m.path), at, true));
      }
    } else if (
      m.type === 'identify' &&
      input.links?.has(linkKey(m.accountId, m.visitorId, m.id)) &&
      !(v?.identifiedVerified === true && !identifyVerified(m))
    ) {
      // (A claim kept as history beside a verified link was never announced: nor is it again.)
      plan.identified.push(identified(m, at, true));
    }
  };

  /** A grant's earlier page views, oldest first: counted, listed and sessioned as the visitor's (the site's hours counted them already). */
  const creditViews = (v: VisitorState, views: readonly { path: string; at: string }[], siteId: string, grantAt: string) => {
    for (const view of [...views].sort((a, b) => ms(a.at) - ms(b.at))) {
      const at = iso(ms(view.at) <= ms(grantAt) ? view.at : grantAt);
      const path = cleanPath(view.path);
      v.pageViews += 1;
      if (ms(at) < ms(v.firstSeen)) v.firstSeen = at;
      v.lastPages = [...v.lastPages, { path, at }].sort((a, b) => ms(b.at) - ms(a.at)).slice(0, LAST_PAGES);
      const idle = v.sessionLastAt === null || ms(at) - ms(v.sessionLastAt) > SESSION_IDLE_MS;
      touchSession(v, at, idle ? { siteId, landingPath: path, referrer: null, utmCampaign: null } : null, 1);
      scoreView(v, at, idle);
    }
  };

  for (const m of messages) {
    const ref = collectedRef(m);
    const key = collectedKey(ref.accountId, ref.visitorId, ref.id);
    const at = iso(m.receivedAt);
    if (seen.has(key) || collected.has(key)) {
      plan.counts.duplicates += 1;
      // Already collected, its sends may not have gone out (a crash before them): they go again under the same ids.
      if (!seen.has(key) && m.type !== 'bot') redeliver(m, at);
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
    if (v.intentAt === null || at > v.intentAt) v.intentAt = at;
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
        if (m.cookieless) v.cookieless = true;
        v.pageViews += 1;
        v.lastPages = [{ path, ...(m.title ? { title: m.title } : {}), at }, ...v.lastPages].slice(0, LAST_PAGES);
        const idle = v.sessionLastAt === null || ms(at) - ms(v.sessionLastAt) > SESSION_IDLE_MS;
        const newCampaign = campaign !== null && campaign !== v.sessionCampaign;
        touchSession(v, at, idle || newCampaign ? { siteId: m.siteId, landingPath: path, referrer, utmCampaign: campaign } : null, 1);
        locate(m, v, at);
        const matched = (rules.get(m.accountId) ?? []).filter((r) => r.matches(path));
        scoreView(v, at, idle || newCampaign);
        scoreRules(v, at, matched);
        fireRules(m, v, path, at, matched);
        break;
      }
      case 'engagement':
        v.engagedSeconds += Math.min(m.seconds, ENGAGED_SECONDS_MAX);
        if (m.seconds > 0) addContribution(v.intentContributions, 'engaged', Math.min(m.seconds, ENGAGED_SECONDS_MAX) / 60, at);
        touchSession(v, at, null, 0);
        break;
      case 'identify': {
        const erasedAt = input.erasures?.get(erasureKey(m.accountId, m.email));
        // A cookieless or refusing visitor is never identified; a person erased after this identify was sent stays erased.
        if (v.cookieless || v.consent === 'denied' || (erasedAt !== undefined && ms(at) <= ms(erasedAt))) {
          plan.counts.identifiesDropped += 1;
          touchSession(v, at, null, 0);
          break;
        }
        const method = m.method ?? 'identify';
        const verified = identifyVerified(m);
        const confidence = identificationConfidence(method, verified);
        // The same person by the same method again (an identify on every page), or a claim of the
        // person already verified: nothing new to link or announce. A verified identify of a person
        // only claimed so far is new: it upgrades the link.
        const alreadyVerified = v.identifiedVerified === true;
        if (v.email === m.email && (v.identifiedMethod === method || alreadyVerified) && (!verified || alreadyVerified)) {
          touchSession(v, at, null, 0);
          break;
        }
        // A claim never replaces a current verified link: it is kept as history only, and announced to nobody.
        const claimOverVerified = !verified && v.identifiedVerified === true;
        plan.links.push({
          accountId: m.accountId,
          visitorId: m.visitorId,
          siteId: m.siteId,
          email: m.email,
          method,
          confidence,
          verified,
          at,
          sourceId: m.id,
          sourcePath: m.path ? cleanPath(m.path) : null,
        });
        if (claimOverVerified) {
          touchSession(v, at, null, 0);
          break;
        }
        plan.identified.push(identified(m, at, false));
        // The newest link wins (by its time, so a late identify does not undo a newer one); older ones stay as history.
        if (v.identifiedAt === null || ms(at) >= ms(v.identifiedAt))
          Object.assign(v, { email: m.email, identifiedMethod: method, identifiedAt: at, identifiedConfidence: confidence, identifiedVerified: verified });
        // The person's company may be one the visit has not counted for yet.
        if (v.pageViews > 0) visitedBy(m, v, at, false);
        touchSession(v, at, null, 0);
        break;
      }
      case 'consent':
        if (m.state === 'granted') {
          Object.assign(v, { consent: 'granted', consentAt: at, cookieless: false });
          // Only the views this browser sent while consent was pending are credited: the day's
          // cookieless profile (everyone behind the same address and browser) is left as it is.
          creditViews(v, m.views ?? [], m.siteId, at);
        } else {
          // A refusal takes back every identification of this visitor id.
          Object.assign(v, {
            consent: 'denied',
            consentAt: at,
            email: null,
            identifiedMethod: null,
            identifiedAt: null,
            identifiedConfidence: null,
            identifiedVerified: null,
          });
          plan.unlinks.push({ accountId: m.accountId, visitorId: m.visitorId });
          plan.links = plan.links.filter((l) => l.accountId !== m.accountId || l.visitorId !== m.visitorId);
        }
        touchSession(v, at, null, 0);
        break;
      case 'track':
        // An event scores when the account weighs it, with or without the add-on (scoring is not a workflow).
        if (weightOf(`event:${m.event}`, weightsOf(m.accountId)) > 0) addContribution(v.intentContributions, `event:${m.event}`, 1, at, eventReason(m.event));
        if (!hasWorkflows(m)) plan.counts.withoutAddon += 1;
        else if (v.email) plan.forwards.push(forward(m, v.email, at, false));
        else plan.counts.tracksUnidentified += 1;
        touchSession(v, at, null, 0);
        break;
    }
  }

  plan.profiles = [...state.values()].map(({ v, isNew }) => {
    const intent = intentStateOf(v.intentContributions, v.intentAt, weightsOf(v.accountId));
    return { ...v, companyKey: companyKeyOf(v), intentRaw: intent.raw, intentRank: intent.rank, isNew };
  });
  plan.sessions = [...sessions.values()];
  // Sorted, so concurrent transactions take the shared rows' locks in one order.
  plan.siteHours = [...hours.values()].sort((a, b) => (a.siteId === b.siteId ? a.hour.localeCompare(b.hour) : a.siteId < b.siteId ? -1 : 1));
  return plan;
}

/**
 * Whether the message's account had the workflows add-on when the gateway collected it: page rules
 * and tracks become events (for playbooks) only then. Decided at collection, so a message accepted
 * before a removal still counts, and a redelivery decides as the first delivery did.
 */
const hasWorkflows = (m: CollectedMessage): boolean => m.workflows !== false;

type CompiledRule = PageRule & { matches: PathMatcher };

function rulesByAccount(rules: readonly PageRule[]): Map<string, CompiledRule[]> {
  const out = new Map<string, CompiledRule[]>();
  for (const r of rules) {
    const list = out.get(r.accountId) ?? [];
    list.push({ ...r, matches: compilePathGlob(r.pattern) });
    out.set(r.accountId, list);
  }
  return out;
}

function forward(m: Extract<CollectedMessage, { type: 'track' }>, email: string, at: string, redelivered: boolean): TrackForward {
  return {
    eventId: trackEventId(m.siteId, m.visitorId, m.id),
    accountId: m.accountId,
    event: m.event,
    email,
    properties: m.properties,
    receivedAt: at,
    redelivered,
  };
}

function ruleForward(
  rule: PageRule & { event: string },
  accountId: string,
  visitorId: string,
  session: number,
  email: string,
  path: string,
  at: string,
  redelivered: boolean,
): TrackForward {
  return {
    eventId: pageRuleEventId(rule.id, visitorId, session),
    accountId,
    event: rule.event,
    email,
    properties: { path, rule: rule.id },
    receivedAt: at,
    redelivered,
  };
}

function identified(m: Extract<CollectedMessage, { type: 'identify' }>, at: string, redelivered: boolean): IdentifiedMessage {
  const method = m.method ?? 'identify';
  const verified = identifyVerified(m);
  return {
    eventId: identifiedEventId(m.accountId, m.visitorId, m.id),
    accountId: m.accountId,
    siteId: m.siteId,
    visitorId: m.visitorId,
    method,
    confidence: identificationConfidence(method, verified),
    verified,
    email: m.email,
    at,
    redelivered,
  };
}
