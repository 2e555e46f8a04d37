// Identification on the real broker and Postgres: methods and re-link history, visitors.identified
// once per link, erasure tombstones dropping an identify still queued, consent merging a cookieless
// visitor, page rules firing once per session (a replayed batch fires nothing twice), and a site's stats.
import { randomBytes, randomUUID } from 'node:crypto';
import { TOPICS, visitorIdentifiedSchema, type Collected } from '@glimpse/messaging';
import type { RunningVisitorsService } from '@glimpse/visitors';
import { identifiedEventId, pageRuleEventId } from '../src/domain/track-event-id';
import { endOffsets, ofAccount, readTopic } from '../../../test/support/kafka-helpers';
import { closeTestDb, testDb, waitFor } from '../../../test/support/stack';
import { startTestVisitorsService, visitorsApi } from '../../../test/support/visitors';
import { closeProducer, message, newSite, newVisitorId, produceCollected, type Site } from './collected-messages';

let service: RunningVisitorsService;
const tag = randomBytes(4).toString('hex');

beforeAll(async () => {
  service = await startTestVisitorsService();
});

afterAll(async () => {
  await service?.stop();
  await closeProducer();
  await closeTestDb();
});

const api = (site: Site, path: string, init?: RequestInit) => visitorsApi(service.url, site.accountId, path, init);
const minutesAgo = (m: number) => new Date(Date.now() - m * 60_000);
const record = async (site: Site, v: string) => (await api(site, `/internal/visitors/${v}`)).body;
const waitForPageViews = (site: Site, v: string, n: number) =>
  waitFor(async () => (await api(site, `/internal/visitors/${v}/details`)).body?.visitor?.page_views === n, {
    what: `${n} page views of ${v}`,
    timeoutMs: 30_000,
  });

describe('identify methods', () => {
  it('when one visitor gives a form email then an email link with another, then it is re-linked to the newest with both in its history, and each link is announced once', async () => {
    const site = newSite();
    const v = newVisitorId();
    const from = await endOffsets(TOPICS.visitorsIdentified);
    const form = message(site, v, 'identify', { email: `ann.${tag}@example.com`, method: 'form', path: '/contact' }, minutesAgo(5));
    const link = message(site, v, 'identify', { email: `bob.${tag}@example.com`, method: 'email_link' }, minutesAgo(4));
    const batch: Collected[] = [
      message(site, v, 'pageview', { path: '/' }, minutesAgo(6)),
      form,
      link,
      message(site, v, 'pageview', { path: '/next' }, minutesAgo(3)),
    ];
    await produceCollected(batch);
    await waitForPageViews(site, v, 2);

    const details = (await api(site, `/internal/visitors/${v}/details`)).body;
    expect(details).toMatchObject({
      email: `bob.${tag}@example.com`,
      visitor: { identified_by: { method: 'email_link', confidence: 1, verified: true, at: link.receivedAt } },
    });
    const r = await record(site, v);
    expect(r.identityHistory).toEqual([
      { email: `bob.${tag}@example.com`, method: 'email_link', confidence: 1, verified: true, at: link.receivedAt, sourceId: link.id, sourcePath: null },
      { email: `ann.${tag}@example.com`, method: 'form', confidence: 0.6, verified: false, at: form.receivedAt, sourceId: form.id, sourcePath: '/contact' },
    ]);
    expect(r.pages.map((p: { path: string }) => p.path)).toEqual(['/next', '/']);
    expect(r.sessionList).toHaveLength(1);
    expect(r.consent).toEqual({ state: 'implied', at: null });

    // The batch again (a redelivery), then one more page view: the links are announced under the same ids only.
    await produceCollected([...batch, message(site, v, 'pageview', { path: '/last' }, minutesAgo(2))]);
    await waitForPageViews(site, v, 3);
    const read = ofAccount(await readTopic(TOPICS.visitorsIdentified, { from, to: await endOffsets(TOPICS.visitorsIdentified) }), site.accountId);
    expect(new Set(read.map((m) => m.json.eventId))).toEqual(
      new Set([identifiedEventId(site.accountId, v, form.id), identifiedEventId(site.accountId, v, link.id)]),
    );
    for (const m of read) {
      expect(visitorIdentifiedSchema.safeParse(m.json).success).toBe(true);
      expect(m.key).toBe(`${site.accountId}:${v}`);
    }
    expect(read.find((m) => m.json.method === 'form')!.json).toMatchObject({
      confidence: 0.6,
      verified: false,
      siteId: site.siteId,
      visitorId: v,
      email: `ann.${tag}@example.com`,
    });

    const identified = await api(site, '/internal/visitors?identified=true');
    expect(identified.body.items.map((i: { id: string }) => i.id)).toEqual([v]);
    expect((await api(site, '/internal/visitors?identified=false')).body.items).toEqual([]);
  });

  it('when a person is erased while an identify of them is still queued, then that identify is dropped; the tombstone holds no email', async () => {
    const site = newSite();
    const [a, b] = [newVisitorId(), newVisitorId()];
    const email = `erased.${tag}@example.com`;
    await produceCollected([message(site, a, 'identify', { email }, minutesAgo(10)), message(site, a, 'pageview', { path: '/' }, minutesAgo(10))]);
    await waitForPageViews(site, a, 1);
    expect((await api(site, `/internal/persons/${encodeURIComponent(email)}`, { method: 'DELETE' })).body).toEqual({ deletedVisitors: 1, deletedLinks: 1 });

    // Sent before the erasure, applied after it.
    await produceCollected([message(site, b, 'identify', { email }, minutesAgo(1)), message(site, b, 'pageview', { path: '/' }, minutesAgo(1))]);
    await waitForPageViews(site, b, 1);
    expect((await api(site, `/internal/visitors/${b}/details`)).body.email).toBeUndefined();
    const tombstones = await testDb('visitors').$queryRawUnsafe<Record<string, unknown>[]>(
      `SELECT * FROM visitors.visitor_erasures WHERE account_id = $1::uuid`,
      site.accountId,
    );
    expect(tombstones).toHaveLength(1);
    expect(JSON.stringify(tombstones)).not.toContain('erased.');
    expect(tombstones[0]!.email_hash).toMatch(/^[0-9a-f]{64}$/);
  });
});

describe('consent', () => {
  it("when consent is granted with the views that browser sent while pending, then those views join the new visitor and the day's shared cookieless profile stays", async () => {
    const site = newSite();
    const [cookieless, v] = [newVisitorId(), newVisitorId()];
    // The day's cookieless profile holds the views of everyone behind one address and browser: this browser's two and a neighbour's.
    const a = message(site, cookieless, 'pageview', { path: '/a', cookieless: true }, minutesAgo(50));
    const b = message(site, cookieless, 'pageview', { path: '/b', cookieless: true }, minutesAgo(45));
    await produceCollected([
      a,
      b,
      message(site, cookieless, 'pageview', { path: '/neighbour', cookieless: true }, minutesAgo(44)),
      message(site, cookieless, 'identify', { email: `never.${tag}@example.com` }, minutesAgo(44)),
    ]);
    await waitForPageViews(site, cookieless, 3);
    expect((await record(site, cookieless)).cookieless).toBe(true);
    const views = [a, b].map((m) => ({ id: m.id, path: (m as { path: string }).path, at: m.receivedAt }));
    const grant = message(site, v, 'consent', { state: 'granted', cookielessId: cookieless, views }, minutesAgo(2));
    await produceCollected([grant, message(site, v, 'pageview', { path: '/c' }, minutesAgo(1))]);
    await waitForPageViews(site, v, 3);

    const r = await record(site, v);
    // The grant is activity in the credited views' session: the next view continues it.
    expect(r).toMatchObject({ pageViews: 3, sessions: 1, cookieless: false, consent: { state: 'granted', at: grant.receivedAt }, identityHistory: [] });
    expect(r.firstSeen).toBe(r.pages[2].at); // the first credited view's time
    expect(r.pages.map((p: { path: string }) => p.path)).toEqual(['/c', '/b', '/a']);
    expect(r.sessionList.map((s: { number: number; pageViews: number; landingPath: string }) => [s.number, s.pageViews, s.landingPath])).toEqual([
      [1, 3, '/a'],
    ]);
    // The shared day profile is left as it was (the neighbour's view is not folded into this browser's visitor).
    const shared = await record(site, cookieless);
    expect(shared).toMatchObject({ pageViews: 3, cookieless: true });
  });

  it('when consent is denied after an identification, then the links and email go and the consent is recorded', async () => {
    const site = newSite();
    const v = newVisitorId();
    await produceCollected([
      message(site, v, 'pageview', { path: '/' }, minutesAgo(3)),
      message(site, v, 'identify', { email: `deny.${tag}@example.com` }, minutesAgo(2)),
    ]);
    await waitForPageViews(site, v, 1);
    await produceCollected([message(site, v, 'consent', { state: 'denied' }, minutesAgo(1)), message(site, v, 'pageview', { path: '/x' })]);
    await waitForPageViews(site, v, 2);
    const r = await record(site, v);
    expect(r).toMatchObject({ identityHistory: [], consent: { state: 'denied' } });
    expect(r.email).toBeUndefined();
  });
});

describe('page rules', () => {
  it('when an identified visitor views matching pages, then the rule fires once per session and a replayed batch fires nothing twice', async () => {
    const site = newSite();
    const [v, anonymous] = [newVisitorId(), newVisitorId()];
    const email = `rules.${tag}@example.com`;
    const created = await api(site, '/internal/page-rules', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ pattern: '/pricing*', event: 'viewed_pricing' }),
    });
    expect(created.status).toBe(201);
    const rule = created.body.id as string;
    expect((await api(site, '/internal/page-rules')).body.items).toEqual([created.body]);
    expect(
      (
        await api(site, '/internal/page-rules', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ pattern: 'pricing', event: 'x' }),
        })
      ).status,
    ).toBe(400);
    expect(
      (
        await api(site, '/internal/page-rules', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ pattern: '/x', event: 'bad name!' }),
        })
      ).status,
    ).toBe(400);

    const from = await endOffsets(TOPICS.eventsInbound);
    const batch: Collected[] = [
      message(site, v, 'identify', { email }, minutesAgo(100)),
      message(site, v, 'pageview', { path: '/pricing' }, minutesAgo(99)),
      message(site, v, 'pageview', { path: '/pricing/teams' }, minutesAgo(98)),
      message(site, anonymous, 'pageview', { path: '/pricing' }, minutesAgo(98)),
      // A second session.
      message(site, v, 'pageview', { path: '/pricing' }, minutesAgo(10)),
    ];
    await produceCollected(batch);
    await waitForPageViews(site, v, 3);
    await produceCollected([...batch, message(site, v, 'pageview', { path: '/docs' }, minutesAgo(9))]);
    await waitForPageViews(site, v, 4);
    const read = ofAccount(await readTopic(TOPICS.eventsInbound, { from, to: await endOffsets(TOPICS.eventsInbound) }), site.accountId);
    expect(new Set(read.map((m) => m.json.eventId))).toEqual(new Set([pageRuleEventId(rule, v, 1), pageRuleEventId(rule, v, 2)]));
    const first = read.find((m) => m.json.eventId === pageRuleEventId(rule, v, 1))!;
    expect(first.json).toMatchObject({ accountId: site.accountId, event: 'viewed_pricing', email, properties: { path: '/pricing', rule } });
    // Copies of one event are the same bytes (the playbook dedups them by eventId).
    for (const id of [pageRuleEventId(rule, v, 1), pageRuleEventId(rule, v, 2)])
      expect(new Set(read.filter((m) => m.json.eventId === id).map((m) => m.value)).size).toBe(1);

    expect((await api(site, `/internal/page-rules/${rule}`, { method: 'DELETE' })).status).toBe(204);
    expect((await api(site, `/internal/page-rules/${rule}`, { method: 'DELETE' })).status).toBe(404);
  });
});

describe('site stats', () => {
  it('counts the last 24 hours: page views, visitors, identified visitors and bots', async () => {
    const site = newSite();
    const [a, b] = [newVisitorId(), newVisitorId()];
    await produceCollected([
      message(site, a, 'pageview', { path: '/' }, minutesAgo(30)),
      message(site, a, 'pageview', { path: '/x' }, minutesAgo(29)),
      message(site, b, 'pageview', { path: '/' }, minutesAgo(20)),
      message(site, b, 'identify', { email: `stats.${tag}@example.com` }, minutesAgo(19)),
      { type: 'bot', id: `bot${randomUUID().slice(0, 8)}`, ...site, receivedAt: minutesAgo(5).toISOString(), reason: 'Googlebot' },
    ]);
    await waitForPageViews(site, a, 2);
    await waitFor(async () => (await api(site, `/internal/sites/${site.siteId}/stats`)).body.bots === 1, { what: 'the bot counted' });
    expect((await api(site, `/internal/sites/${site.siteId}/stats`)).body).toEqual({ page_views: 3, visitors: 2, identified_visitors: 1, bots: 1 });
  });
});
