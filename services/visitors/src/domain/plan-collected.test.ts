import { inboundEventSchema, type Collected, type CollectedMessage } from '@glimpse/messaging';
import { applyChunk, emptyTables, replayOneByOne } from './collected-replay';
import { profileKey, withoutQuery } from './plan-collected';
import { trackEventId } from './track-event-id';

const ACCOUNT = '00000000-0000-4000-8000-000000000001';
const SITE = '00000000-0000-4000-8000-000000000002';
const VID = 'a'.repeat(24);
const T0 = Date.UTC(2026, 0, 1, 10, 0, 0);
const at = (minutes: number) => new Date(T0 + minutes * 60_000).toISOString();
let seq = 0;
const base = (minutes: number, visitorId = VID) => ({ id: `msg${String(++seq).padStart(6, '0')}`, accountId: ACCOUNT, siteId: SITE, visitorId, receivedAt: at(minutes) });
const pv = (minutes: number, path: string, extra: Partial<Extract<CollectedMessage, { type: 'pageview' }>> = {}, visitorId = VID): CollectedMessage => ({ ...base(minutes, visitorId), type: 'pageview', path, ...extra });
const eng = (minutes: number, seconds: number, visitorId = VID): CollectedMessage => ({ ...base(minutes, visitorId), type: 'engagement', pageViewId: 'pageview01', seconds });
const identify = (minutes: number, email: string, visitorId = VID): CollectedMessage => ({ ...base(minutes, visitorId), type: 'identify', email, path: '/signup' });
const track = (minutes: number, event: string, visitorId = VID): CollectedMessage => ({ ...base(minutes, visitorId), type: 'track', event, properties: { plan: 'pro' } });
const bot = (minutes: number): Collected => ({ type: 'bot', id: `bot${++seq}xxxxx`, accountId: ACCOUNT, siteId: SITE, receivedAt: at(minutes), reason: 'Googlebot' });

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
    const t = replayOneByOne([pv(0, '/', { utm: { campaign: 'spring' } }), pv(1, '/a'), pv(2, '/b', { utm: { campaign: 'summer' } }), pv(3, '/c', { utm: { campaign: 'summer' } })]);
    expect(profile(t).sessions).toBe(2);
    expect(profile(t).firstUtm).toEqual({ campaign: 'spring' });
  });

  it('keeps the last 20 pages newest first, the first referrer without its query, and engaged seconds', () => {
    const views = Array.from({ length: 25 }, (_, i) => pv(i, `/p${i}?secret=1`, { title: `P${i}`, referrer: i === 0 ? 'https://news.example/item?id=7#c' : `https://site.example/p${i - 1}` }));
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
    return () => ((s = (s * 1664525 + 1013904223) >>> 0) / 2 ** 32);
  }

  function randomMessages(rand: () => number, n: number): Collected[] {
    const visitors = ['1', '2', '3', '4'].map((c) => c.repeat(24));
    const out: Collected[] = [];
    let minutes = 0;
    for (let i = 0; i < n; i++) {
      minutes += rand() < 0.1 ? 45 : rand() * 8;
      const vid = visitors[Math.floor(rand() * visitors.length)]!;
      const r = rand();
      if (r < 0.5) out.push(pv(minutes, `/p${Math.floor(rand() * 30)}`, { title: 'T', ...(rand() < 0.15 ? { utm: { campaign: `c${Math.floor(rand() * 3)}` } } : {}), ...(rand() < 0.3 ? { referrer: 'https://r.example/x?q=1' } : {}) }, vid));
      else if (r < 0.7) out.push(eng(minutes, Math.floor(rand() * 100), vid));
      else if (r < 0.8) out.push(identify(minutes, `p${Math.floor(rand() * 3)}@example.com`, vid));
      else if (r < 0.93) out.push(track(minutes, 'clicked', vid));
      else out.push(bot(minutes));
    }
    return out;
  }

  const state = (t: ReturnType<typeof emptyTables>) => ({
    profiles: Object.fromEntries(t.profiles),
    sessions: Object.fromEntries(t.sessions),
    links: Object.fromEntries(t.links),
    hours: Object.fromEntries(t.hours),
    collected: [...t.collected].sort(),
    forwards: t.forwards.map((f) => `${f.eventId} ${f.email}`),
  });

  it.each(Array.from({ length: 40 }, (_, i) => i + 1))('seed %i: chunks of random sizes with redelivered duplicates end in the state of one-by-one application', (seed) => {
    const rand = rng(seed);
    const messages = randomMessages(rand, 150);
    const expected = state(replayOneByOne(messages));

    const t = emptyTables();
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
