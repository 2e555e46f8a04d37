// The state the steps of a chunk's plan share (plan-collected.ts folds the messages through them):
// the plan being built, each touched visitor's profile as it stands after the messages so far, the
// sessions and site hours written, the rules that fired, and the helpers every step uses on them.
import type { CollectedMessage } from '@glimpse/messaging';
import type { CollectedPlan, FiringRow, PageRule, PlanCollectedInput, SessionWrite, SiteHourDelta, VisitorState } from './collected-records.js';
import { firingKey, hourOf, iso, ms, profileKey, sessionKey } from './collected-keys.js';
import { companyKeyOf } from './company-key.js';
import { addContribution, DEFAULT_INTENT_SETTINGS, type IntentWeights } from './intent-score.js';
import { compilePathGlob, type PathMatcher } from './page-rule-pattern.js';

const DAY_MS = 24 * 3_600_000;

export type CompiledRule = PageRule & { matches: PathMatcher };

export interface PlanState {
  readonly input: PlanCollectedInput;
  readonly plan: CollectedPlan;
  /** Each visitor a message of the chunk touched, by profileKey, and whether it is new. */
  readonly touched: Map<string, { v: VisitorState; isNew: boolean }>;
  readonly sessions: Map<string, SessionWrite>;
  readonly hours: Map<string, SiteHourDelta>;
  /** The dedupe keys of the chunk's messages so far. */
  readonly seen: Set<string>;
  readonly rules: Map<string, CompiledRule[]>;
  readonly weights: Map<string, IntentWeights>;
  /** Rules fired per session (firingKey), and the firings loaded by (visitor, rule, time) for redeliveries. */
  readonly fired: Set<string>;
  readonly firedAt: Map<string, FiringRow>;
  /** The company visits announced (account and site, company, window start). */
  readonly announced: Set<string>;
  readonly windowMs: number;
}

export function planState(input: PlanCollectedInput): PlanState {
  const fired = new Set<string>();
  const firedAt = new Map<string, FiringRow>();
  for (const f of input.firings ?? []) {
    fired.add(firingKey(f.accountId, f.visitorId, f.sessionNumber, f.ruleId));
    firedAt.set(firedAtKey(f.accountId, f.visitorId, f.ruleId, iso(f.at)), f);
  }
  return {
    input,
    plan: {
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
    },
    touched: new Map(),
    sessions: new Map(),
    hours: new Map(),
    seen: new Set(),
    rules: rulesByAccount(input.rules ?? []),
    weights: new Map(),
    fired,
    firedAt,
    announced: new Set(),
    windowMs: input.companyWindowMs ?? DAY_MS,
  };
}

export const firedAtKey = (accountId: string, visitorId: string, ruleId: string, at: string) => `${profileKey(accountId, visitorId)}\n${ruleId}\n${at}`;

function rulesByAccount(rules: readonly PageRule[]): Map<string, CompiledRule[]> {
  const out = new Map<string, CompiledRule[]>();
  for (const r of rules) {
    const list = out.get(r.accountId) ?? [];
    list.push({ ...r, matches: compilePathGlob(r.pattern) });
    out.set(r.accountId, list);
  }
  return out;
}

/** The account's intent settings with its page rules' weights (computed once per account). */
export function weightsOf(s: PlanState, accountId: string): IntentWeights {
  let w = s.weights.get(accountId);
  if (!w) {
    const ruleWeights = new Map((s.rules.get(accountId) ?? []).map((r) => [r.id, r.weight ?? 0]));
    s.weights.set(accountId, (w = { ...(s.input.intent?.get(accountId) ?? DEFAULT_INTENT_SETTINGS), ruleWeights }));
  }
  return w;
}

export function hourRow(s: PlanState, siteId: string, accountId: string, at: string): SiteHourDelta {
  const hour = hourOf(at);
  const key = `${siteId}\n${hour}`;
  let row = s.hours.get(key);
  if (!row) s.hours.set(key, (row = { siteId, hour, accountId, pageViews: 0, visitors: 0, bots: 0 }));
  return row;
}

/** The visitor as it stands: after the chunk's messages so far, else as loaded (undefined: never seen). */
export function known(s: PlanState, accountId: string, visitorId: string): VisitorState | undefined {
  const key = profileKey(accountId, visitorId);
  return s.touched.get(key)?.v ?? s.input.visitors.get(key);
}

/** The visitor a message changes: a copy of the loaded profile (or a new one) on its first message. */
export function visitorOf(s: PlanState, m: CollectedMessage, at: string): VisitorState {
  const key = profileKey(m.accountId, m.visitorId);
  let entry = s.touched.get(key);
  if (!entry) {
    const before = s.input.visitors.get(key);
    entry = before
      ? { v: { ...before, lastPages: [...before.lastPages], intentContributions: before.intentContributions.map((c) => ({ ...c })) }, isNew: false }
      : { v: newProfile(m, at), isNew: true };
    s.touched.set(key, entry);
  }
  return entry.v;
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

/** The fields a page view that opens a session gives its row. */
export type SessionOpening = Omit<SessionWrite, 'accountId' | 'visitorId' | 'number' | 'startedAt' | 'lastAt' | 'pageViews'>;

/** Opens a session (open given) or extends the current one, and counts its page views in its row. */
export function touchSession(s: PlanState, v: VisitorState, at: string, open: SessionOpening | null, pageViews: number): void {
  if (open) {
    v.sessions += 1;
    v.sessionStartedAt = at;
    v.sessionLastAt = at;
    v.sessionCampaign = open.utmCampaign;
  } else if (v.sessionLastAt === null) return;
  else if (ms(at) > ms(v.sessionLastAt)) v.sessionLastAt = at;
  const key = sessionKey(v.accountId, v.visitorId, v.sessions);
  const row = s.sessions.get(key);
  if (row) {
    row.pageViews += pageViews;
    row.lastAt = v.sessionLastAt!;
  } else {
    // An open session's row exists already: only page_views (added) and last_at (raised) count.
    const base = open ?? { siteId: v.siteId, landingPath: null, referrer: null, utmCampaign: v.sessionCampaign };
    s.sessions.set(key, {
      accountId: v.accountId,
      visitorId: v.visitorId,
      number: v.sessions,
      startedAt: v.sessionStartedAt!,
      lastAt: v.sessionLastAt!,
      pageViews,
      ...base,
    });
  }
}

/** Intent: what the visitor did, in message time (contributions merge per key and UTC day). */
export function scoreView(v: VisitorState, at: string, opened: boolean): void {
  addContribution(v.intentContributions, 'page_view', 1, at);
  if (opened) addContribution(v.intentContributions, 'session', 1, at);
}

/** A company visit, announced once per (site, company, window). */
export function visitedBy(s: PlanState, m: CollectedMessage, v: VisitorState, at: string, redelivered: boolean): void {
  const company = companyKeyOf(v);
  if (company === null || v.cookieless) return;
  const windowStart = new Date(Math.floor(ms(at) / s.windowMs) * s.windowMs).toISOString();
  const key = `${profileKey(m.accountId, m.siteId)}\n${company}\n${windowStart}`;
  if (s.announced.has(key)) return;
  s.announced.add(key);
  s.plan.companyVisits.push({ accountId: m.accountId, siteId: m.siteId, company, windowStart, visitorId: m.visitorId, at, redelivered });
}
