import { inboundEventSchema, type Collected, type CollectedMessage } from '@glimpse/messaging';
import { applyChunk, emptyTables, replayOneByOne, type ReplayWorld } from './collected-replay';
import { validPageRulePattern } from '@glimpse/api';
import { compilePathGlob } from './page-rule-pattern';
import { erasureKey, profileKey, withoutQuery, type NetworkInfo, type PersonMethod } from './plan-collected';
import { identifiedEventId, pageRuleEventId, trackEventId } from './track-event-id';

const ACCOUNT = '00000000-0000-4000-8000-000000000001';
const LONDON = { country: 'GB', region: 'England', city: 'London', time_zone: 'Europe/London' };
const ACME: NetworkInfo = {
  network: { name: 'Acme', type: 'business', asn: 64500, domain: 'acme.example' },
  company: { name: 'Acme', domain: 'acme.example' },
  location: LONDON,
};
const HOME: NetworkInfo = { network: { name: 'Example Cable', type: 'isp', asn: 64501, domain: null }, company: null, location: LONDON };
const SITE = '00000000-0000-4000-8000-000000000002';
const VID = 'a'.repeat(24);
const T0 = Date.UTC(2026, 0, 1, 10, 0, 0);
const at = (minutes: number) => new Date(T0 + minutes * 60_000).toISOString();
let seq = 0;
const base = (minutes: number, visitorId = VID) => ({
  id: `msg${String(++seq).padStart(6, '0')}`,
  accountId: ACCOUNT,
  siteId: SITE,
  visitorId,
  receivedAt: at(minutes),
});
const pv = (minutes: number, path: string, extra: Partial<Extract<CollectedMessage, { type: 'pageview' }>> = {}, visitorId = VID): CollectedMessage => ({
  ...base(minutes, visitorId),
  type: 'pageview',
  path,
  ...extra,
});
const eng = (minutes: number, seconds: number, visitorId = VID): CollectedMessage => ({
  ...base(minutes, visitorId),
  type: 'engagement',
  pageViewId: 'pageview01',
  seconds,
});
const identify = (minutes: number, email: string, visitorId = VID, method?: PersonMethod, verified?: boolean): CollectedMessage => ({
  ...base(minutes, visitorId),
  type: 'identify',
  email,
  path: '/signup',
  ...(method ? { method } : {}),
  ...(verified !== undefined ? { verified } : {}),
});
const consent = (
  minutes: number,
  state: 'granted' | 'denied',
  visitorId = VID,
  extra: Partial<Extract<CollectedMessage, { type: 'consent' }>> = {},
): CollectedMessage => ({
  ...base(minutes, visitorId),
  type: 'consent',
  state,
  ...extra,
});
const RULE = { id: '00000000-0000-4000-8000-0000000000a1', accountId: ACCOUNT, pattern: '/pricing*', event: 'viewed_pricing' };
const track = (minutes: number, event: string, visitorId = VID): CollectedMessage => ({
  ...base(minutes, visitorId),
  type: 'track',
  event,
  properties: { plan: 'pro' },
});
const bot = (minutes: number): Collected => ({
  type: 'bot',
  id: `bot${++seq}xxxxx`,
  accountId: ACCOUNT,
  siteId: SITE,
  receivedAt: at(minutes),
  reason: 'Googlebot',
});

const profile = (t: ReturnType<typeof emptyTables>, visitorId = VID) => t.profiles.get(profileKey(ACCOUNT, visitorId))!;

describe('planCollected', () => {
  it('when page views come within 30 minutes, then they make one session; after 30 idle minutes a second one', () => {
    const t = replayOneByOne([pv(0, '/'), pv(10, '/pricing'), pv(39, '/docs'), pv(70, '/')]);
    const p = profile(t);
    expect(p).toMatchObject({ pageViews: 4, sessions: 2, firstSeen: at(0), lastSeen: at(70) });
    expect([...t.sessions.values()].map((s) => [s.number, s.pageViews, s.landingPath])).toEqual([
      [1, 3, '/'],
      [2, 1, '/'],
    ]);
  });

  it('when a page view carries a new UTM campaign, then it opens a new session', () => {
    const t = replayOneByOne([
      pv(0, '/', { utm: { campaign: 'spring' } }),
      pv(1, '/a'),
      pv(2, '/b', { utm: { campaign: 'summer' } }),
      pv(3, '/c', { utm: { campaign: 'summer' } }),
    ]);
    expect(profile(t).sessions).toBe(2);
    expect(profile(t).firstUtm).toEqual({ campaign: 'spring' });
  });

  it('keeps the last 20 pages newest first, the first referrer without its query, and engaged seconds', () => {
    const views = Array.from({ length: 25 }, (_, i) =>
      pv(i, `/p${i}?secret=1`, { title: `P${i}`, referrer: i === 0 ? 'https://news.example/item?id=7#c' : `https://site.example/p${i - 1}` }),
    );
    const t = replayOneByOne([...views, eng(25, 12), eng(26, 30)]);
    const p = profile(t);
    expect(p.lastPages).toHaveLength(20);
    expect(p.lastPages[0]).toEqual({ path: '/p24', title: 'P24', at: at(24) });
    expect(p.lastPages[19]!.path).toBe('/p5');
    expect(p.firstReferrer).toBe('https://news.example/item');
    expect(p.engagedSeconds).toBe(42);
  });

  it('counts a visitor once per hour in site_hours and a bot only as a bot', () => {
    const other = 'b'.repeat(24);
    const t = replayOneByOne([pv(0, '/'), pv(5, '/a'), pv(6, '/', {}, other), bot(7), bot(8), pv(65, '/b')]);
    const hours = [...t.hours.values()].map((h) => [h.hour, h.pageViews, h.visitors, h.bots]);
    expect(hours).toEqual([
      [at(0), 3, 2, 2],
      [at(60), 1, 1, 0],
    ]);
    expect(t.profiles.size).toBe(2);
  });

  it('when a visitor identifies then tracks, then the track is forwarded with its email; before identify it is dropped', () => {
    const early = track(0, 'viewed_pricing');
    const later = track(2, 'upgraded');
    const t = emptyTables();
    const plan = applyChunk(t, [early, identify(1, 'ann@example.com'), later]);
    expect(plan.counts.tracksUnidentified).toBe(1);
    expect(plan.forwards).toHaveLength(1);
    const f = plan.forwards[0]!;
    expect(f).toMatchObject({ event: 'upgraded', email: 'ann@example.com', eventId: trackEventId(SITE, VID, later.id), redelivered: false });
    expect(inboundEventSchema.safeParse(f).success).toBe(true);
    expect(profile(t)).toMatchObject({ email: 'ann@example.com', identifiedMethod: 'identify', identifiedAt: at(1), pageViews: 0 });
    expect([...t.links.values()][0]).toMatchObject({ sourcePath: '/signup', method: 'identify' });
  });

  it('when a chunk is redelivered, then nothing changes and tracks of an identified visitor are sent again with the same ids', () => {
    const chunk = [pv(0, '/'), track(0.5, 'dropped_before_identify'), identify(1, 'bo@example.com'), track(2, 'signup'), eng(3, 5)];
    const t = emptyTables();
    const first = applyChunk(t, chunk);
    const snapshot = JSON.stringify([...t.profiles, ...t.sessions, ...t.hours, ...t.links]);
    const again = applyChunk(t, chunk);
    expect(again.counts).toMatchObject({ applied: 0, duplicates: 5 });
    expect(JSON.stringify([...t.profiles, ...t.sessions, ...t.hours, ...t.links])).toBe(snapshot);
    expect(again.forwards.map((f) => f.eventId)).toEqual(first.forwards.map((f) => f.eventId));
    expect(again.forwards[0]!.redelivered).toBe(true);
  });

  it('strips queries from addresses and refuses what is no http address', () => {
    expect(withoutQuery('https://a.example/x?y=1#z')).toBe('https://a.example/x');
    expect(withoutQuery('javascript:alert(1)')).toBeNull();
    expect(withoutQuery('not a url')).toBeNull();
  });
});

describe('planCollected, chunked against one by one', () => {
  // A small deterministic generator, so a failure replays.
  function rng(seed: number) {
    let s = seed >>> 0;
    return () => (s = (s * 1664525 + 1013904223) >>> 0) / 2 ** 32;
  }

  const WORLD: Partial<ReplayWorld> = {
    rules: [RULE, { ...RULE, id: '00000000-0000-4000-8000-0000000000a2', pattern: '/p1*', event: 'viewed_p1' }],
    networks: new Map([
      ['198.51.100.7', ACME],
      ['203.0.113.9', HOME],
    ]),
    erasures: new Map([[erasureKey(ACCOUNT, 'p2@example.com'), at(200)]]),
  };
  const methods: PersonMethod[] = ['identify', 'form', 'email_link'];

  function randomMessages(rand: () => number, n: number): Collected[] {
    const visitors = ['1', '2', '3', '4'].map((c) => c.repeat(24));
    const cookieless = ['c', 'd'].map((c) => c.repeat(24));
    const out: Collected[] = [];
    let minutes = 0;
    for (let i = 0; i < n; i++) {
      minutes += rand() < 0.1 ? 45 : rand() * 8;
      const vid = visitors[Math.floor(rand() * visitors.length)]!;
      const r = rand();
      const path = rand() < 0.2 ? '/pricing' : `/p${Math.floor(rand() * 30)}`;
      if (r < 0.4)
        out.push(
          pv(
            minutes,
            path,
            {
              title: 'T',
              ...(rand() < 0.15 ? { utm: { campaign: `c${Math.floor(rand() * 3)}` } } : {}),
              ...(rand() < 0.3 ? { referrer: 'https://r.example/x?q=1' } : {}),
              ...(rand() < 0.3 ? { ip: rand() < 0.5 ? '198.51.100.7' : '203.0.113.9' } : {}),
            },
            vid,
          ),
        );
      else if (r < 0.5) out.push(pv(minutes, path, { cookieless: true }, cookieless[Math.floor(rand() * cookieless.length)]!));
      else if (r < 0.62) out.push(eng(minutes, Math.floor(rand() * 100), rand() < 0.2 ? cookieless[0]! : vid));
      else if (r < 0.75)
        out.push(
          identify(
            minutes,
            `p${Math.floor(rand() * 3)}@example.com`,
            rand() < 0.1 ? cookieless[1]! : vid,
            methods[Math.floor(rand() * 3)],
            Math.floor(minutes) % 2 === 0,
          ),
        );
      else if (r < 0.8)
        out.push(
          consent(
            minutes,
            rand() < 0.6 ? 'granted' : 'denied',
            vid,
            rand() < 0.7
              ? {
                  views: [
                    {
                      id: `pv_${String(Math.round(minutes * 1000)).padStart(8, '0')}`,
                      path: `/earlier-${Math.floor(rand() * cookieless.length)}`,
                      at: at(minutes),
                    },
                  ],
                }
              : {},
          ),
        );
      else if (r < 0.93) out.push(track(minutes, 'clicked', vid));
      else out.push(bot(minutes));
    }
    return out;
  }

  const state = (t: ReturnType<typeof emptyTables>) => ({
    profiles: Object.fromEntries(t.profiles),
    sessions: Object.fromEntries(t.sessions),
    links: Object.fromEntries(t.links),
    firings: Object.fromEntries(t.firings),
    hours: Object.fromEntries(t.hours),
    collected: [...t.collected].sort(),
    forwards: t.forwards.map((f) => `${f.eventId} ${f.email}`),
    identified: t.identified.map((i) => `${i.eventId} ${i.method} ${i.confidence} ${i.verified}`),
    companyVisits: Object.fromEntries(t.companyVisits),
  });

  it.each(Array.from({ length: 40 }, (_, i) => i + 1))(
    'seed %i: chunks of random sizes with redelivered duplicates end in the state of one-by-one application',
    (seed) => {
      const rand = rng(seed);
      const messages = randomMessages(rand, 150);
      const expected = state(replayOneByOne(messages, emptyTables(WORLD)));
      expect(expected.identified.length).toBeGreaterThan(0);
      expect(expected.companyVisits).not.toEqual({});

      const t = emptyTables(WORLD);
      let i = 0;
      while (i < messages.length) {
        const size = 1 + Math.floor(rand() * 40);
        // A redelivery: the chunk starts again some messages back (a crash before the commit of offsets).
        const from = rand() < 0.3 ? Math.max(0, i - Math.floor(rand() * 20)) : i;
        const chunk = messages.slice(from, i + size);
        // And sometimes a message repeated inside the chunk.
        if (chunk.length > 1 && rand() < 0.3) chunk.splice(Math.floor(rand() * chunk.length), 0, chunk[0]!);
        applyChunk(t, chunk);
        i += size;
      }
      expect(state(t)).toEqual(expected);
    },
  );
});

describe('identification', () => {
  it('when an identify is verified, then it is confidence 1 and verified; unverified (or from before verification) it is a claim at 0.7; a form is a claim at 0.6', () => {
    const cases: [CollectedMessage, number, boolean][] = [
      [identify(1, 'ann@example.com', VID, 'identify', true), 1, true],
      [identify(1, 'ann@example.com', VID, 'identify', false), 0.7, false],
      [identify(1, 'ann@example.com'), 0.7, false],
      [identify(1, 'ann@example.com', VID, 'form', true), 0.6, false],
      [identify(1, 'ann@example.com', VID, 'email_link'), 1, true],
    ];
    for (const [message, confidence, verified] of cases) {
      const t = emptyTables();
      const plan = applyChunk(t, [pv(0, '/'), message]);
      expect(profile(t)).toMatchObject({ email: 'ann@example.com', identifiedConfidence: confidence, identifiedVerified: verified });
      expect([...t.links.values()].map((l) => [l.confidence, l.verified])).toEqual([[confidence, verified]]);
      expect(plan.identified.map((i) => [i.confidence, i.verified])).toEqual([[confidence, verified]]);
    }
  });

  it('when a claim follows a verified identification, then it is kept as history only: the verified link stays current and nothing is announced', () => {
    const t = emptyTables();
    applyChunk(t, [pv(0, '/'), identify(1, 'ann@example.com', VID, 'identify', true)]);
    const plan = applyChunk(t, [identify(2, 'eve@example.com', VID, 'identify', false), identify(3, 'eve@example.com', VID, 'form')]);
    expect(profile(t)).toMatchObject({ email: 'ann@example.com', identifiedAt: at(1), identifiedConfidence: 1, identifiedVerified: true });
    expect([...t.links.values()].map((l) => [l.email, l.method, l.verified])).toEqual([
      ['ann@example.com', 'identify', true],
      ['eve@example.com', 'identify', false],
      ['eve@example.com', 'form', false],
    ]);
    expect(plan.identified).toEqual([]);
    // A claim of the verified person is nothing new; a verified identify of someone else replaces it.
    expect(applyChunk(t, [identify(4, 'ann@example.com', VID, 'identify', false)]).identified).toEqual([]);
    const next = applyChunk(t, [identify(5, 'bob@example.com', VID, 'identify', true)]);
    expect(next.identified.map((i) => [i.email, i.verified])).toEqual([['bob@example.com', true]]);
    expect(profile(t)).toMatchObject({ email: 'bob@example.com', identifiedVerified: true });
  });

  it('when a claimed person is then verified, then the link is upgraded and announced again as verified', () => {
    const t = emptyTables();
    applyChunk(t, [pv(0, '/'), identify(1, 'ann@example.com')]);
    expect(profile(t)).toMatchObject({ identifiedConfidence: 0.7, identifiedVerified: false });
    const plan = applyChunk(t, [identify(2, 'ann@example.com', VID, 'identify', true)]);
    expect(profile(t)).toMatchObject({ email: 'ann@example.com', identifiedConfidence: 1, identifiedVerified: true });
    expect(plan.identified.map((i) => [i.email, i.confidence, i.verified])).toEqual([['ann@example.com', 1, true]]);
  });

  it('when a visitor identifies by form then by an email link with another email, then it is re-linked to the newest and keeps both links', () => {
    const t = emptyTables();
    const plan = applyChunk(t, [
      pv(0, '/'),
      identify(1, 'ann@example.com', VID, 'form'),
      identify(2, 'bob@example.com', VID, 'email_link'),
      identify(3, 'bob@example.com', VID, 'email_link'),
    ]);
    expect(profile(t)).toMatchObject({ email: 'bob@example.com', identifiedMethod: 'email_link', identifiedAt: at(2), identifiedConfidence: 1 });
    expect([...t.links.values()].map((l) => [l.email, l.method, l.confidence])).toEqual([
      ['ann@example.com', 'form', 0.6],
      ['bob@example.com', 'email_link', 1],
    ]);
    // One visitors.identified per new link; the repeat of the current identification is none.
    expect(plan.identified.map((i) => [i.email, i.method])).toEqual([
      ['ann@example.com', 'form'],
      ['bob@example.com', 'email_link'],
    ]);
    expect(plan.identified[0]!.eventId).toBe(identifiedEventId(ACCOUNT, VID, [...t.links.values()][0]!.sourceId));
  });

  it('when an identify was sent before its person was erased, then it is dropped; one sent after links', () => {
    const t = emptyTables({ erasures: new Map([[erasureKey(ACCOUNT, 'gone@example.com'), at(5)]]) });
    applyChunk(t, [identify(4, 'gone@example.com')]);
    expect(t.links.size).toBe(0);
    expect(profile(t).email).toBeNull();
    applyChunk(t, [identify(6, 'gone@example.com')]);
    expect(profile(t).email).toBe('gone@example.com');
  });

  it("when consent is granted with the views this browser sent while pending, then only those are credited to the new visitor, and the day's cookieless profile (shared behind one address and browser) stays as it was", () => {
    const cookieless = 'c'.repeat(24);
    const t = emptyTables();
    // Two browsers behind one address and user agent: one cookieless profile for both.
    const [a, other, b] = [
      pv(0, '/a', { cookieless: true }, cookieless),
      pv(10, '/other', { cookieless: true }, cookieless),
      pv(50, '/b', { cookieless: true }, cookieless),
    ];
    applyChunk(t, [a, other, b, eng(51, 10, cookieless), identify(52, 'x@example.com', cookieless)]);
    expect(t.links.size).toBe(0); // never identified while cookieless
    const before = t.profiles.get(profileKey(ACCOUNT, cookieless));
    const views = [
      { id: b.id, path: '/b', at: at(50) },
      { id: a.id, path: '/a', at: at(0) },
    ];
    applyChunk(t, [consent(53, 'granted', VID, { views }), pv(54, '/c')]);
    expect(t.profiles.get(profileKey(ACCOUNT, cookieless))).toEqual(before);
    expect(profile(t)).toMatchObject({ pageViews: 3, sessions: 2, engagedSeconds: 0, firstSeen: at(0), consent: 'granted', cookieless: false });
    expect(profile(t).lastPages.map((p) => p.path)).toEqual(['/c', '/b', '/a']);
    expect([...t.sessions.values()].filter((s) => s.visitorId === VID).map((s) => [s.number, s.pageViews, s.landingPath])).toEqual([
      [1, 1, '/a'],
      [2, 2, '/b'],
    ]);
  });

  it('when a grant names no views (or only a cookieless id, as before), then nothing of the cookieless day moves', () => {
    const cookieless = 'c'.repeat(24);
    const t = emptyTables();
    applyChunk(t, [pv(0, '/a', { cookieless: true }, cookieless)]);
    applyChunk(t, [consent(1, 'granted', VID, { cookielessId: cookieless })]);
    expect(t.profiles.get(profileKey(ACCOUNT, cookieless))).toMatchObject({ pageViews: 1, cookieless: true });
    expect(profile(t)).toMatchObject({ pageViews: 0, consent: 'granted' });
  });

  it('when consent is denied, then the visitor loses its links and email and identifies are dropped after', () => {
    const t = emptyTables();
    applyChunk(t, [identify(0, 'ann@example.com'), consent(1, 'denied'), identify(2, 'ann@example.com')]);
    expect(t.links.size).toBe(0);
    expect(profile(t)).toMatchObject({ email: null, identifiedMethod: null, consent: 'denied', consentAt: at(1) });
  });

  it('when an unidentified visitor views from a business range, then it gets the company, network and location; the address is not kept', () => {
    const t = emptyTables({ networks: new Map([['198.51.100.7', ACME]]) });
    applyChunk(t, [pv(0, '/', { ip: '198.51.100.7' })]);
    expect(profile(t)).toMatchObject({
      company: { name: 'Acme', domain: 'acme.example' },
      companyAt: at(0),
      network: ACME.network,
      location: LONDON,
      companyKey: 'acme.example',
    });
    expect(JSON.stringify(profile(t))).not.toContain('198.51.100.7');
  });

  it('when a visitor views from a home network, then it keeps the network and location, no company, and stays unidentified', () => {
    const t = emptyTables({ networks: new Map([['203.0.113.9', HOME]]) });
    const plan = applyChunk(t, [pv(0, '/', { ip: '203.0.113.9' })]);
    expect(profile(t)).toMatchObject({ company: null, network: HOME.network, location: LONDON, companyKey: null, email: null });
    expect(plan.companyVisits).toEqual([]);
  });

  it("when a company first visits a site in a day, then one visit is announced for it; a visitor identified with the company's email counts for that domain", () => {
    const t = emptyTables({ networks: new Map([['198.51.100.7', ACME]]) });
    const first = applyChunk(t, [pv(0, '/', { ip: '198.51.100.7' }), pv(1, '/pricing', { ip: '198.51.100.7' })]);
    expect(first.companyVisits.map((c) => [c.company, c.windowStart, c.at])).toEqual([['acme.example', '2026-01-01T00:00:00.000Z', at(0)]]);
    expect(t.companyVisits.size).toBe(1);
    const other = 'b'.repeat(24);
    applyChunk(t, [pv(2, '/', {}, other), identify(3, 'bo@widgets.example', other)]);
    expect(t.profiles.get(profileKey(ACCOUNT, other))).toMatchObject({ companyKey: 'widgets.example', company: null });
    expect([...t.companyVisits.values()].map((c) => c.company)).toEqual(['acme.example', 'widgets.example']);
  });

  it('when an identified visitor views a page matching a rule, then the rule fires once per session; a redelivery sends the same event', () => {
    const t = emptyTables({ rules: [RULE] });
    const chunk = [identify(0, 'ann@example.com'), pv(1, '/pricing'), pv(2, '/pricing/teams'), pv(3, '/docs')];
    const plan = applyChunk(t, chunk);
    expect(plan.forwards.map((f) => [f.event, f.properties, f.eventId])).toEqual([
      ['viewed_pricing', { path: '/pricing', rule: RULE.id }, pageRuleEventId(RULE.id, VID, 1)],
    ]);
    expect(applyChunk(t, chunk).forwards.map((f) => [f.eventId, f.redelivered])).toEqual([[pageRuleEventId(RULE.id, VID, 1), true]]);
    // A new session: fires again.
    expect(applyChunk(t, [pv(60, '/pricing')]).forwards.map((f) => f.eventId)).toEqual([pageRuleEventId(RULE.id, VID, 2)]);
  });
});

describe('an account without the workflows add-on (workflows: false from the gateway)', () => {
  const without = <M extends CollectedMessage>(m: M): M => ({ ...m, workflows: false });

  it('when its identified visitor views a matching page or tracks, then no event is forwarded and no firing recorded; the visit still counts', () => {
    const t = emptyTables({ rules: [RULE] });
    const plan = applyChunk(t, [identify(0, 'ann@example.com'), without(pv(1, '/pricing')), without(track(2, 'upgraded'))]);
    expect(plan.forwards).toEqual([]);
    expect(plan.firings).toEqual([]);
    expect(plan.counts).toMatchObject({ applied: 3, rulesFired: 0, withoutAddon: 2, tracksUnidentified: 0 });
    expect(profile(t)).toMatchObject({ pageViews: 1, email: 'ann@example.com', lastPages: [{ path: '/pricing', at: at(1) }] });
    // Redelivered, it still sends nothing.
    expect(applyChunk(t, [without(pv(1, '/pricing')), without(track(2, 'upgraded'))]).forwards).toEqual([]);
  });

  it('when the add-on is back, then the next matching view of the same session fires (nothing was recorded without it); messages collected with it fire as before', () => {
    const t = emptyTables({ rules: [RULE] });
    applyChunk(t, [identify(0, 'ann@example.com'), without(pv(1, '/pricing'))]);
    const back = applyChunk(t, [pv(2, '/pricing/teams'), track(3, 'upgraded')]);
    expect(back.forwards.map((f) => [f.event, f.eventId])).toEqual([
      ['viewed_pricing', pageRuleEventId(RULE.id, VID, 1)],
      ['upgraded', expect.any(String)],
    ]);
    // A message without the marker (collected before the change, or by an older gateway) has the add-on.
    expect(applyChunk(emptyTables({ rules: [RULE] }), [identify(0, 'bo@example.com'), pv(1, '/pricing')]).counts).toMatchObject({
      rulesFired: 1,
      withoutAddon: 0,
    });
  });
});

describe('page rule patterns', () => {
  it('matches whole paths with * as any run, without backtracking blow-ups', () => {
    const m = compilePathGlob('/pricing*');
    expect([m('/pricing'), m('/pricing/teams'), m('/about/pricing')]).toEqual([true, true, false]);
    const mid = compilePathGlob('/blog/*/comments');
    expect([mid('/blog/a/b/comments'), mid('/blog/comments'), mid('/blog//comments')]).toEqual([true, false, true]);
    expect(compilePathGlob('/exact')('/exact/')).toBe(false);
    const evil = compilePathGlob(`/${'*a'.repeat(100)}b`);
    const started = Date.now();
    expect(evil(`/${'a'.repeat(5000)}`)).toBe(false);
    expect(Date.now() - started).toBeLessThan(200);
    expect([validPageRulePattern('/x*'), validPageRulePattern('x'), validPageRulePattern(`/${'a'.repeat(256)}`)]).toEqual([true, false, false]);
  });
});

describe('trackEventId', () => {
  it('is a deterministic version 8 UUID that zod accepts', () => {
    const a = trackEventId(SITE, VID, 'abcdefgh');
    expect(a).toBe(trackEventId(SITE, VID, 'abcdefgh'));
    expect(a).not.toBe(trackEventId(SITE, VID, 'abcdefgi'));
    expect(a[14]).toBe('8');
    expect(inboundEventSchema.shape.eventId.safeParse(a).success).toBe(true);
  });
});
