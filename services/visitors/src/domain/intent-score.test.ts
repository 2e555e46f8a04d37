import type { CollectedMessage } from '@glimpse/messaging';
import { applyChunk, emptyTables, replayOneByOne } from './collected-replay';
import { intentRank } from './intent-decay';
import {
  addContribution,
  answerOf,
  companyIntent,
  DEFAULT_INTENT_SETTINGS,
  defaultIntentWeights,
  INTENT_CONTRIBUTIONS_MAX,
  intentStateOf,
  rawOf,
  visitorIntent,
  type IntentContribution,
  type IntentWeights,
} from './intent-score';
import { profileKey, type VisitorState } from './plan-collected';

const ACCOUNT = '00000000-0000-4000-8000-0000000000c1';
const SITE = '00000000-0000-4000-8000-0000000000c2';
const VID = 'c'.repeat(24);
const T0 = Date.UTC(2026, 2, 2, 10, 0, 0);
const DAY = 86_400_000;
const at = (minutes: number) => new Date(T0 + minutes * 60_000).toISOString();
const RULE = { id: '00000000-0000-4000-8000-0000000000d1', accountId: ACCOUNT, pattern: '/pricing*', event: null, weight: 20 };
let seq = 0;
const base = (minutes: number, visitorId = VID) => ({
  id: `int${String(++seq).padStart(6, '0')}`,
  accountId: ACCOUNT,
  siteId: SITE,
  visitorId,
  receivedAt: at(minutes),
});
const pv = (minutes: number, path: string, visitorId = VID): CollectedMessage => ({ ...base(minutes, visitorId), type: 'pageview', path });
const eng = (minutes: number, seconds: number): CollectedMessage => ({ ...base(minutes), type: 'engagement', pageViewId: 'pageview01', seconds });
const track = (minutes: number, event: string): CollectedMessage => ({ ...base(minutes), type: 'track', event, properties: {} });
const weights = (extra: Partial<IntentWeights> = {}): IntentWeights => ({ ...defaultIntentWeights(), ruleWeights: new Map([[RULE.id, 20]]), ...extra });
const world = () => ({ rules: [RULE], intent: new Map([[ACCOUNT, { ...DEFAULT_INTENT_SETTINGS, eventWeights: { demo_requested: 30 } }]]) });
const profile = (t: ReturnType<typeof emptyTables>, visitorId = VID): VisitorState => t.profiles.get(profileKey(ACCOUNT, visitorId))!;

describe('intent score', () => {
  it('when a contribution is one half-life old, then it counts half', () => {
    const list: IntentContribution[] = [];
    addContribution(list, 'page_view', 1, new Date(T0).toISOString());
    const w = weights({ pageViewWeight: 10 });
    expect(rawOf(list, new Date(T0), w)).toBe(10);
    expect(rawOf(list, new Date(T0 + 7 * DAY), w)).toBeCloseTo(5, 10);
    expect(rawOf(list, new Date(T0 + 14 * DAY), weights({ pageViewWeight: 10, halfLifeDays: 14 }))).toBeCloseTo(5, 10);
    const state = intentStateOf(list, new Date(T0).toISOString(), w);
    expect(visitorIntent({ raw: state.raw, at: state.at, contributions: list }, new Date(T0 + 7 * DAY), w)).toEqual({
      score: 5,
      reasons: [{ reason: '1 page view', points: 5, at: new Date(T0).toISOString() }],
    });
  });

  it('when page views, a session, engagement, a weighted rule and a weighted event arrive, then each counts its weight', () => {
    const t = emptyTables(world());
    applyChunk(t, [pv(0, '/pricing'), eng(1, 120), pv(2, '/pricing/teams'), track(3, 'demo_requested'), track(4, 'unweighted')]);
    const p = profile(t);
    // 2 page views × 1, 1 session × 3, 2 minutes × 1, /pricing* once this session × 20, demo_requested × 30 (decayed over 4 minutes at most).
    expect(p.intentRaw).toBeGreaterThan(56.99);
    expect(p.intentRaw).toBeLessThanOrEqual(57);
    expect(p.intentAt).toBe(at(4));
    expect(p.intentRank).toBe(intentRank(p.intentRaw, new Date(at(4)), 7));
    expect(p.intentContributions.map((c) => [c.key, c.units, c.reason]).sort()).toEqual(
      [
        ['engaged', 2, '2 min engaged'],
        ['event:demo_requested', 1, 'Tracked demo_requested'],
        ['page_view', 2, '2 page views'],
        [`rule:${RULE.id}`, 1, 'Visited /pricing* (page rule)'],
        ['session', 1, '1 session'],
      ].sort(),
    );
  });

  it('when a rule matches again in a new session, then it counts once per session', () => {
    const t = emptyTables(world());
    applyChunk(t, [pv(0, '/pricing'), pv(5, '/pricing')]);
    applyChunk(t, [pv(10, '/pricing'), pv(60, '/pricing')]);
    const rule = profile(t).intentContributions.find((c) => c.key === `rule:${RULE.id}`)!;
    expect(rule.units).toBe(2);
    expect(profile(t).intentContributions.find((c) => c.key === 'session')!.units).toBe(2);
  });

  it('when a weight changes, then re-scoring the stored contributions gives the sum with the new weight', () => {
    const t = emptyTables(world());
    applyChunk(t, [pv(0, '/pricing'), pv(1, '/docs')]);
    const p = profile(t);
    const before = intentStateOf(p.intentContributions, p.intentAt, weights());
    expect(before.raw).toBeCloseTo(2 + 3 + 20, 2);
    const after = intentStateOf(p.intentContributions, p.intentAt, weights({ ruleWeights: new Map([[RULE.id, 50]]), sessionWeight: 0 }));
    expect(after.raw).toBeCloseTo(2 + 50, 2);
    expect(after.raw).toBe(rawOf(p.intentContributions, new Date(p.intentAt!), weights({ ruleWeights: new Map([[RULE.id, 50]]), sessionWeight: 0 })));
    expect(after.rank).toBe(intentRank(after.raw, new Date(p.intentAt!), 7));
    // A deleted rule weighs nothing.
    expect(intentStateOf(p.intentContributions, p.intentAt, weights({ ruleWeights: new Map() })).raw).toBeCloseTo(5, 2);
  });

  it('when reasons are rounded, then their points add up exactly to the score', () => {
    let random = 42;
    const next = () => (random = (random * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
    for (let round = 0; round < 300; round += 1) {
      const list: IntentContribution[] = [];
      const keys = ['page_view', 'session', 'engaged', `rule:${RULE.id}`, 'event:demo_requested'];
      for (let i = 0; i < 1 + Math.floor(next() * 30); i += 1)
        addContribution(list, keys[Math.floor(next() * keys.length)]!, 0.1 + next() * 5, new Date(T0 + Math.floor(next() * 20 * DAY)).toISOString(), 'x');
      const w = weights({ eventWeights: { demo_requested: next() * 60 } });
      const newest = list.reduce((m, c) => (c.at > m ? c.at : m), list[0]!.at);
      const state = intentStateOf(list, newest, w);
      const now = new Date(Date.parse(newest) + Math.floor(next() * 10 * DAY));
      const answer = visitorIntent({ raw: state.raw, at: state.at, contributions: list }, now, w);
      expect(answer.score).toBeGreaterThanOrEqual(0);
      expect(answer.score).toBeLessThanOrEqual(100);
      expect(answer.reasons.reduce((s, r) => s + r.points, 0)).toBe(answer.score);
      expect(answer.reasons.every((r) => Number.isInteger(r.points) && r.points > 0)).toBe(true);
      expect(answer.reasons.map((r) => r.points)).toEqual([...answer.reasons.map((r) => r.points)].sort((a, b) => b - a));
      const capped = answerOf(state.raw, [list], new Date(newest), w, 2);
      expect(capped.reasons.length).toBeLessThanOrEqual(2);
      expect(capped.reasons.reduce((s, r) => s + r.points, 0)).toBe(capped.score);
    }
  });

  it('when a sum passes 100, then the score is 100 and the reasons are scaled down to it', () => {
    const list: IntentContribution[] = [];
    addContribution(list, `rule:${RULE.id}`, 5, at(0), 'Visited /pricing* (page rule)');
    addContribution(list, 'session', 20, at(0));
    const answer = visitorIntent({ raw: 160, at: at(0), contributions: list }, new Date(at(0)), weights());
    expect(answer).toEqual({
      score: 100,
      reasons: [
        { reason: 'Visited /pricing* (page rule)', points: 63, at: at(0) },
        { reason: '20 sessions', points: 37, at: at(0) },
      ],
    });
  });

  it("when a company's visitors did the same thing, then its reasons merge them", () => {
    const a: IntentContribution[] = [];
    const b: IntentContribution[] = [];
    addContribution(a, 'session', 1, at(0));
    addContribution(b, 'session', 2, at(5));
    addContribution(b, `rule:${RULE.id}`, 1, at(5), 'Visited /pricing* (page rule)');
    const answer = companyIntent(29, [a, b], new Date(at(5)), weights());
    expect(answer.score).toBe(29);
    expect(answer.reasons).toEqual([
      { reason: 'Visited /pricing* (page rule)', points: 20, at: at(5) },
      { reason: '3 sessions', points: 9, at: at(5) },
    ]);
  });

  it('when the same key happens on one UTC day, then it merges; on the next day, then it is a new entry', () => {
    const list: IntentContribution[] = [];
    addContribution(list, 'page_view', 1, '2026-03-02T01:00:00.000Z');
    addContribution(list, 'page_view', 1, '2026-03-02T23:00:00.000Z');
    addContribution(list, 'page_view', 1, '2026-03-02T12:00:00.000Z');
    addContribution(list, 'page_view', 1, '2026-03-03T00:00:00.000Z');
    expect(list).toEqual([
      { key: 'page_view', reason: '3 page views', units: 3, at: '2026-03-02T23:00:00.000Z' },
      { key: 'page_view', reason: '1 page view', units: 1, at: '2026-03-03T00:00:00.000Z' },
    ]);
  });

  it('when more than 60 entries are made, then the oldest go', () => {
    const list: IntentContribution[] = [];
    for (let d = 0; d < 70; d += 1) addContribution(list, 'page_view', 1, new Date(T0 + d * DAY).toISOString());
    expect(list).toHaveLength(INTENT_CONTRIBUTIONS_MAX);
    expect(list[0]!.at).toBe(new Date(T0 + 10 * DAY).toISOString());
    expect(list.at(-1)!.at).toBe(new Date(T0 + 69 * DAY).toISOString());
  });

  it('when a chunk is redelivered or replayed one by one, then the scores are the same', () => {
    const messages = [pv(0, '/pricing'), eng(1, 45), pv(3, '/docs'), track(4, 'demo_requested'), pv(50, '/pricing'), pv(60 * 30, '/pricing')];
    const t = emptyTables(world());
    applyChunk(t, messages);
    const once = structuredClone(profile(t));
    applyChunk(t, messages);
    expect(profile(t)).toEqual(once);
    const oneByOne = replayOneByOne(messages, emptyTables(world()));
    expect(profile(oneByOne)).toEqual(once);
  });
});
