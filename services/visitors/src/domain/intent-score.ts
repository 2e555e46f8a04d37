// The intent score of a visitor and of a company, with the reason for every point. A visitor keeps
// what it did as contributions ({key, reason, units, at}: a page view, a new session, engaged
// minutes, a page rule once per session, a tracked event), the same key on one UTC day merged, at
// most INTENT_CONTRIBUTIONS_MAX kept. Its weighted sum decays with the account's half-life
// (intent-decay.ts): kept as raw as of the newest message applied, so replaying the same messages
// gives the same numbers. Weights are read when the sum is made: a weight changed later counts once
// the account is re-scored (intent-rescorer.ts). Pure.
import { decayFactor, DEFAULT_HALF_LIFE_DAYS, intentRank, scoreNow, SCORE_MAX } from './intent-decay.js';

export const INTENT_CONTRIBUTIONS_MAX = 60;
/** The reasons an alert lists at most (answerOf's `max`: the points of the rest go to them, so they still add up to the score). */
export const INTENT_REASONS_MAX = 10;

export interface IntentContribution {
  /** page_view, session, engaged, rule:<page rule id> or event:<event name>. */
  key: string;
  reason: string;
  /** Points before decay are units × the key's weight (engaged: minutes). */
  units: number;
  /** The last time it happened (ISO). */
  at: string;
}

export interface IntentReason {
  reason: string;
  points: number;
  at: string;
}

export interface IntentAnswer {
  score: number;
  reasons: IntentReason[];
}

/** An account's visitors.intent_settings row (the defaults when it has none). */
export interface IntentSettings {
  halfLifeDays: number;
  pageViewWeight: number;
  sessionWeight: number;
  engagedMinuteWeight: number;
  eventWeights: Record<string, number>;
}

/** The settings and the page rules' weights (by rule id): every weight a key can have. */
export interface IntentWeights extends IntentSettings {
  ruleWeights: ReadonlyMap<string, number>;
}

export const DEFAULT_INTENT_SETTINGS: IntentSettings = {
  halfLifeDays: DEFAULT_HALF_LIFE_DAYS,
  pageViewWeight: 1,
  sessionWeight: 3,
  engagedMinuteWeight: 1,
  eventWeights: {},
};

export const defaultIntentWeights = (): IntentWeights => ({ ...DEFAULT_INTENT_SETTINGS, ruleWeights: new Map() });

/** What one unit of a key is worth now: a rule or event without a weight (or deleted) is worth nothing. */
export function weightOf(key: string, w: IntentWeights): number {
  switch (key) {
    case 'page_view':
      return w.pageViewWeight;
    case 'session':
      return w.sessionWeight;
    case 'engaged':
      return w.engagedMinuteWeight;
  }
  if (key.startsWith('rule:')) return w.ruleWeights.get(key.slice(5)) ?? 0;
  if (key.startsWith('event:')) return Object.hasOwn(w.eventWeights, key.slice(6)) ? (w.eventWeights[key.slice(6)] ?? 0) : 0;
  return 0;
}

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/** The human text of a key with these units: counts say how many; a rule or an event keeps the text it was given. */
export function reasonText(key: string, units: number, given: string): string {
  switch (key) {
    case 'page_view':
      return plural(Math.round(units), 'page view', 'page views');
    case 'session':
      return plural(Math.round(units), 'session', 'sessions');
    case 'engaged':
      return `${Math.max(1, Math.round(units))} min engaged`;
  }
  return given;
}

export const ruleReason = (pattern: string) => `Visited ${pattern} (page rule)`;
export const eventReason = (event: string) => `Tracked ${event}`;

const day = (at: string) => at.slice(0, 10);

/**
 * Adds units of a key at a time to a visitor's contributions (in place): merged into the entry of
 * the same key and UTC day (units add, at the later time), else a new entry. Kept oldest first (then
 * by key), so the oldest go first past INTENT_CONTRIBUTIONS_MAX.
 */
export function addContribution(list: IntentContribution[], key: string, units: number, at: string, given = ''): void {
  const same = list.find((c) => c.key === key && day(c.at) === day(at));
  if (same) {
    same.units += units;
    same.reason = reasonText(key, same.units, given || same.reason);
    if (at <= same.at) return;
    same.at = at;
  } else list.push({ key, reason: reasonText(key, units, given), units, at });
  list.sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  if (list.length > INTENT_CONTRIBUTIONS_MAX) list.splice(0, list.length - INTENT_CONTRIBUTIONS_MAX);
}

/** Σ weight × units × decay(at → asOf), in the list's order (the same list gives the same float). */
export function rawOf(list: readonly IntentContribution[], asOf: Date, w: IntentWeights): number {
  let raw = 0;
  for (const c of list) {
    const weight = weightOf(c.key, w);
    if (weight > 0 && c.units > 0) raw += weight * c.units * decayFactor(new Date(c.at), asOf, w.halfLifeDays);
  }
  return raw;
}

/** A visitor's stored score: raw as of `at` (the newest message applied), and its rank. */
export interface IntentState {
  raw: number;
  at: string | null;
  rank: number | null;
}

export function intentStateOf(list: readonly IntentContribution[], at: string | null, w: IntentWeights): IntentState {
  if (at === null || list.length === 0) return { raw: 0, at, rank: null };
  const raw = rawOf(list, new Date(at), w);
  return { raw, at, rank: intentRank(raw, new Date(at), w.halfLifeDays) };
}

/** The integer score shown: the score now, rounded (in SQL: scoreIntegerSql). */
export const scoreInteger = (score: number) => Math.min(SCORE_MAX, Math.max(0, Math.round(score)));

/** Each key's points now, merged over the lists given (a company's visitors): units add, the latest time and text win. */
function pointsByKey(lists: readonly (readonly IntentContribution[])[], now: Date, w: IntentWeights) {
  const out = new Map<string, { key: string; units: number; at: string; given: string; points: number }>();
  for (const list of lists)
    for (const c of list) {
      const weight = weightOf(c.key, w);
      if (weight <= 0 || c.units <= 0) continue;
      const points = weight * c.units * decayFactor(new Date(c.at), now, w.halfLifeDays);
      const row = out.get(c.key);
      if (!row) out.set(c.key, { key: c.key, units: c.units, at: c.at, given: c.reason, points });
      else {
        row.units += c.units;
        row.points += points;
        if (c.at > row.at) Object.assign(row, { at: c.at, given: c.reason });
      }
    }
  return [...out.values()];
}

/**
 * The answer {score, reasons}: the reasons best first, integer points that add up exactly to the
 * score (each reason's decayed share of it, largest remainders rounded up), none of 0 points; with
 * `max`, only the best `max` reasons share the score. `score` is the score now.
 */
export function answerOf(score: number, lists: readonly (readonly IntentContribution[])[], now: Date, w: IntentWeights, max = Infinity): IntentAnswer {
  const target = scoreInteger(score);
  const rows = pointsByKey(lists, now, w).sort((a, b) => b.points - a.points || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  const total = rows.reduce((s, r) => s + r.points, 0);
  if (target === 0 || total <= 0) return { score: 0, reasons: [] };
  const kept = rows.slice(0, max);
  const keptTotal = kept.reduce((s, r) => s + r.points, 0);
  const shares = kept.map((r) => (r.points * target) / keptTotal);
  const points = shares.map(Math.floor);
  let left = target - points.reduce((s, p) => s + p, 0);
  const order = shares.map((s, i) => i).sort((i, j) => shares[j]! - Math.floor(shares[j]!) - (shares[i]! - Math.floor(shares[i]!)) || i - j);
  for (const i of order) {
    if (left <= 0) break;
    points[i]! += 1;
    left -= 1;
  }
  const reasons = kept
    .map((r, i) => ({ reason: reasonText(r.key, r.units, r.given), points: points[i]!, at: r.at }))
    .filter((r) => r.points > 0)
    .sort((a, b) => b.points - a.points);
  return { score: target, reasons };
}

/** A visitor's answer now, from its stored raw, time and contributions. */
export function visitorIntent(
  v: { raw: number; at: string | null; contributions: readonly IntentContribution[] },
  now: Date,
  w: IntentWeights,
  max = Infinity,
): IntentAnswer {
  return answerOf(scoreNow(v.raw, v.at === null ? null : new Date(v.at), now, w.halfLifeDays), [v.contributions], now, w, max);
}

/**
 * A company's answer now: its score is the sum of its visitors' raw decayed to now (`rawNow`, all of
 * them, e.g. from SQL), at most 100; its reasons, the visitors' contributions given merged by key
 * (the same reason text).
 */
export function companyIntent(rawNow: number, visitors: readonly (readonly IntentContribution[])[], now: Date, w: IntentWeights, max = Infinity): IntentAnswer {
  return answerOf(Math.min(SCORE_MAX, rawNow), visitors, now, w, max);
}
