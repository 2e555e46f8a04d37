// The visitors service on the real broker and Postgres: collected messages produced straight to
// visitors.collected are read back through the internal API; redelivery changes nothing; tracks of
// identified visitors reach events.inbound with the email; erasure and deletions remove rows; an
// invalid message goes to the dead-letter topic.
import { randomUUID } from 'node:crypto';
import { TOPICS, type Collected } from '@glimpse/messaging';
import type { RunningVisitorsService } from '@glimpse/visitors';
import { trackEventId } from '../src/domain/track-event-id';
import { endOffsets, produceRaw, readTopic } from '../../../test/support/kafka-helpers';
import { closeTestDb, testDb, waitFor } from '../../../test/support/stack';
import { startTestVisitorsService, visitorsApi } from '../../../test/support/visitors';
import { closeProducer, message, newSite, newVisitorId, produceCollected, type Site } from './collected-messages';

let service: RunningVisitorsService;

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

async function pageViewsOf(site: Site, visitorId: string): Promise<number | undefined> {
  const res = await api(site, `/internal/visitors/${visitorId}/details`);
  return res.status === 200 ? (res.body.visitor.page_views as number) : undefined;
}

const waitForPageViews = (site: Site, visitorId: string, n: number) =>
  waitFor(async () => (await pageViewsOf(site, visitorId)) === n, { what: `${n} page views of ${visitorId}`, timeoutMs: 30_000 });

function visit(site: Site, visitorId: string): Collected[] {
  return [
    message(
      site,
      visitorId,
      'pageview',
      {
        path: '/',
        title: 'Home',
        referrer: 'https://search.example/q?term=x',
        utm: { source: 'news', campaign: 'spring' },
        url: 'https://site.example/?utm_campaign=spring',
        userAgent: 'UA',
        ip: '203.0.113.9',
      },
      minutesAgo(90),
    ),
    message(site, visitorId, 'engagement', { pageViewId: 'pageview01', seconds: 40 }, minutesAgo(89)),
    message(site, visitorId, 'pageview', { path: '/pricing', title: 'Pricing' }, minutesAgo(88)),
    // Past 30 idle minutes: a second session.
    message(site, visitorId, 'pageview', { path: '/docs', title: 'Docs' }, minutesAgo(20)),
    message(site, visitorId, 'engagement', { pageViewId: 'pageview02', seconds: 15 }, minutesAgo(19)),
  ];
}

describe('collected messages read through the internal API', () => {
  it('when page views, engagement and bots are collected, then details, the list and the site traffic show them', async () => {
    const site = newSite();
    const [a, b] = [newVisitorId(), newVisitorId()];
    const bot: Collected = { type: 'bot', id: 'botmessage01', ...site, receivedAt: new Date().toISOString(), reason: 'Googlebot' };
    await produceCollected([...visit(site, a), message(site, b, 'pageview', { path: '/b' }), bot]);
    await waitForPageViews(site, a, 3);
    await waitForPageViews(site, b, 1);

    const details = await api(site, `/internal/visitors/${a}/details`);
    expect(details.body).toEqual({
      visitor: {
        page_views: 3,
        sessions: 2,
        first_seen: expect.any(String),
        last_seen: expect.any(String),
        last_page: '/docs',
        engaged_seconds: 55,
        intent: { score: expect.any(Number), reasons: expect.any(Array) },
      },
    });
    // The default weights: 3 a session, 1 a page view, 1 an engaged minute; the reasons add up to the score.
    const intent = details.body.visitor.intent as { score: number; reasons: { reason: string; points: number }[] };
    expect(intent.reasons.map((r) => r.reason)).toEqual(['2 sessions', '3 page views', '1 min engaged']);
    expect(intent.reasons.reduce((s, r) => s + r.points, 0)).toBe(intent.score);
    expect(Date.parse(details.body.visitor.last_seen) - Date.parse(details.body.visitor.first_seen)).toBeGreaterThan(60 * 60_000);
    const row = await testDb('visitors').$queryRawUnsafe<{ first_referrer: string; first_utm: unknown; last_pages: string }[]>(
      `SELECT first_referrer, first_utm, last_pages::text AS last_pages FROM visitors.visitor_profiles WHERE account_id = $1::uuid AND id = $2`,
      site.accountId,
      a,
    );
    // Never a query string, an address or a user agent in the aggregates.
    expect(row[0]).toMatchObject({ first_referrer: 'https://search.example/q', first_utm: { source: 'news', campaign: 'spring' } });
    expect(JSON.stringify(row[0])).not.toMatch(/term=|203\.0\.113|UA"/);

    const list = await api(site, '/internal/visitors?limit=1');
    expect(list.status).toBe(200);
    expect(list.body.items).toHaveLength(1);
    expect(list.body.items[0]).toMatchObject({ id: b, siteId: site.siteId, pageViews: 1, lastPage: '/b' });
    const next = await api(site, `/internal/visitors?limit=1&cursor=${list.body.nextCursor}`);
    expect(next.body.items.map((i: { id: string }) => i.id)).toEqual([a]);
    expect(next.body.nextCursor).toBeNull();

    const traffic = await api(site, `/internal/sites/${site.siteId}/traffic`);
    expect(traffic.body.hours).toHaveLength(24);
    const total = (k: string) => traffic.body.hours.reduce((s: number, h: Record<string, number>) => s + h[k]!, 0);
    expect([total('pageViews'), total('bots')]).toEqual([4, 1]);
    // a counted in the hour of 90 minutes ago, in that of 88 minutes ago if it is another, and in that of 20 minutes ago; b once.
    expect(total('visitors')).toBeGreaterThanOrEqual(3);
    // The first page view's own time, not the start of its hour.
    expect(traffic.body.firstPageViewAt).toBe(details.body.visitor.first_seen);

    expect((await api(site, `/internal/visitors/${newVisitorId()}/details`)).status).toBe(404);
    expect((await api(newSite(), `/internal/visitors/${a}/details`)).status).toBe(404); // another account
  });

  it('when the same messages are delivered twice, then nothing changes', async () => {
    const site = newSite();
    const v = newVisitorId();
    const messages = visit(site, v);
    await produceCollected(messages);
    await waitForPageViews(site, v, 3);
    const before = await api(site, `/internal/visitors/${v}/details`);
    const hoursBefore = await api(site, `/internal/sites/${site.siteId}/traffic`);

    // The same messages again, then one new page view behind them on the same partition.
    await produceCollected([...messages, message(site, v, 'pageview', { path: '/last' }, minutesAgo(19))]);
    await waitForPageViews(site, v, 4);
    const after = await api(site, `/internal/visitors/${v}/details`);
    const { intent: scoreBefore, ...fieldsBefore } = before.body.visitor;
    const { intent: scoreAfter, ...fieldsAfter } = after.body.visitor;
    expect(fieldsAfter).toEqual({ ...fieldsBefore, page_views: 4, last_page: '/last', last_seen: after.body.visitor.last_seen });
    // Scored once: the redelivered sessions and page views are not counted again, the new page view is.
    const reasons = (i: { reasons: { reason: string }[] }) => i.reasons.map((r) => r.reason);
    expect(reasons(scoreBefore)).toEqual(['2 sessions', '3 page views', '1 min engaged']);
    expect(reasons(scoreAfter)).toEqual(['2 sessions', '4 page views', '1 min engaged']);
    const hoursAfter = await api(site, `/internal/sites/${site.siteId}/traffic`);
    const sum = (body: { hours: { pageViews: number }[] }) => body.hours.reduce((s, h) => s + h.pageViews, 0);
    expect(sum(hoursAfter.body)).toBe(sum(hoursBefore.body) + 1);
  });

  it('when two accounts send a message with the same visitor id and the same message id, then each is counted: the dedup is keyed with the account', async () => {
    // Both ids come from the browser (a vid, an event id): another account's site must not be able to shadow this one's.
    const [first, second] = [newSite(), newSite()];
    const v = newVisitorId();
    const a = message(first, v, 'pageview', { path: '/a' });
    const b = { ...message(second, v, 'pageview', { path: '/b' }), id: a.id };
    await produceCollected([a]);
    await waitForPageViews(first, v, 1);
    await produceCollected([b]);
    await waitForPageViews(second, v, 1);
    const rows = await testDb('visitors').$queryRawUnsafe<{ account_id: string }[]>(
      `SELECT account_id::text AS account_id FROM visitors.collected_messages WHERE visitor_id = $1 AND id = $2 ORDER BY account_id`,
      v,
      a.id,
    );
    expect(rows.map((r) => r.account_id)).toEqual([first.accountId, second.accountId].sort());
  });
});

describe('identification and tracks', () => {
  it('when a visitor identifies then tracks, then one InboundEvent per track reaches events.inbound with the email, also after a redelivery', async () => {
    const site = newSite();
    const v = newVisitorId();
    const email = `ann.${randomUUID().slice(0, 8)}@example.com`;
    const from = await endOffsets(TOPICS.eventsInbound);
    const before = message(site, v, 'track', { event: 'viewed_pricing', properties: {} }, minutesAgo(3));
    const messages = [
      before,
      message(site, v, 'identify', { email, path: '/signup?x=1' }, minutesAgo(2)),
      message(site, v, 'track', { event: 'upgraded', properties: { plan: 'pro', seats: 3 } }, minutesAgo(1)),
    ];
    const track = messages[2]!;
    await produceCollected(messages);
    const eventId = trackEventId(site.siteId, v, track.id);
    const ours = (all: { json: { eventId?: string } }[]) => all.filter((m) => m.json?.eventId === eventId);
    const read = await readTopic(TOPICS.eventsInbound, { from, until: (all) => ours(all).length >= 1 });
    expect(ours(read)[0]).toMatchObject({
      key: `${site.accountId}:${email}`,
      json: { eventId, accountId: site.accountId, event: 'upgraded', email, properties: { plan: 'pro', seats: 3 }, receivedAt: track.receivedAt },
    });
    const details = await api(site, `/internal/visitors/${v}/details`);
    expect(details.body).toMatchObject({ email, visitor: { page_views: 0, identified_by: { method: 'identify' } } });

    // Redelivered: the same track again under the same eventId (the playbook dedups); the one sent before identify never.
    await produceCollected([...messages, message(site, v, 'pageview', { path: '/after' })]);
    await waitForPageViews(site, v, 1);
    const again = await readTopic(TOPICS.eventsInbound, { from, to: await endOffsets(TOPICS.eventsInbound) });
    const copies = again.filter((m) => m.json?.accountId === site.accountId);
    expect(new Set(copies.map((m) => m.json.eventId))).toEqual(new Set([eventId]));
    expect(new Set(copies.map((m) => m.value)).size).toBe(1);
    expect(copies.some((m) => m.json.eventId === trackEventId(site.siteId, v, before.id))).toBe(false);
  });
});

describe('deletions', () => {
  const count = async (table: string, accountId: string) =>
    (await testDb('visitors').$queryRawUnsafe<{ n: number }[]>(`SELECT count(*)::int AS n FROM visitors.${table} WHERE account_id = $1::uuid`, accountId))[0]!
      .n;

  it('when a person is erased, then their links and the aggregates of every visitor linked to them go', async () => {
    const site = newSite();
    const [a, b, other] = [newVisitorId(), newVisitorId(), newVisitorId()];
    const email = `erase.${randomUUID().slice(0, 8)}@example.com`;
    await produceCollected([
      ...visit(site, a),
      message(site, a, 'identify', { email }),
      message(site, b, 'pageview', { path: '/' }),
      message(site, b, 'identify', { email }),
      message(site, other, 'pageview', { path: '/' }),
    ]);
    await waitFor(async () => (await count('identity_links', site.accountId)) === 2 && (await pageViewsOf(site, other)) === 1, {
      what: 'links and the other visitor',
    });

    const res = await api(site, `/internal/persons/${encodeURIComponent(email.toUpperCase())}`, { method: 'DELETE' });
    expect(res).toEqual({ status: 200, body: { deletedVisitors: 2, deletedLinks: 2 } });
    expect((await api(site, `/internal/visitors/${a}/details`)).status).toBe(404);
    expect((await api(site, `/internal/visitors/${b}/details`)).status).toBe(404);
    expect(await pageViewsOf(site, other)).toBe(1);
    expect(await count('identity_links', site.accountId)).toBe(0);
    const sessions = await testDb('visitors').$queryRawUnsafe<{ n: number }[]>(
      `SELECT count(*)::int AS n FROM visitors.visitor_sessions WHERE account_id = $1::uuid AND visitor_id = ANY($2::text[])`,
      site.accountId,
      [a, b],
    );
    expect(sessions[0]!.n).toBe(0);
  });

  it('when a site is deleted, then its visitors, sessions, links and hours go; another site of the account stays', async () => {
    const site = newSite();
    const other = newSite(site.accountId);
    const [a, b] = [newVisitorId(), newVisitorId()];
    await produceCollected([
      ...visit(site, a),
      message(site, a, 'identify', { email: 'site.delete@example.com' }),
      message(other, b, 'pageview', { path: '/' }),
    ]);
    await waitForPageViews(site, a, 3);
    await waitForPageViews(other, b, 1);

    expect((await api(site, `/internal/sites/${site.siteId}`, { method: 'DELETE' })).status).toBe(204);
    expect((await api(site, `/internal/visitors/${a}/details`)).status).toBe(404);
    expect(await pageViewsOf(other, b)).toBe(1);
    const traffic = await api(site, `/internal/sites/${site.siteId}/traffic`);
    expect(traffic.body.firstPageViewAt).toBeNull();
    expect(traffic.body.hours.every((h: Record<string, number>) => h.pageViews === 0 && h.visitors === 0 && h.bots === 0)).toBe(true);
    expect(await count('identity_links', site.accountId)).toBe(0);
  });

  it('when the account is deleted, then its rows leave every visitors table', async () => {
    const site = newSite();
    const v = newVisitorId();
    await produceCollected([...visit(site, v), message(site, v, 'identify', { email: 'account.delete@example.com' })]);
    await waitForPageViews(site, v, 3);
    await produceRaw(TOPICS.accounts, [
      { key: site.accountId, value: JSON.stringify({ type: 'account.deleted', accountId: site.accountId, at: new Date().toISOString() }) },
    ]);
    await waitFor(async () => (await count('visitor_profiles', site.accountId)) === 0, { what: 'the account deletion applied' });
    for (const table of ['visitor_sessions', 'identity_links', 'site_hours']) expect(await count(table, site.accountId)).toBe(0);
  });
});

describe('invalid messages', () => {
  it('when a message is not a collected message, then it goes to visitors.collected.dlq with its reason and the rest is applied', async () => {
    const site = newSite();
    const v = newVisitorId();
    const from = await endOffsets(TOPICS.visitorsDeadLetter);
    const key = `${site.siteId}:${v}`;
    await produceRaw(TOPICS.visitorsCollected, [
      {
        key,
        value: JSON.stringify({
          type: 'pageview',
          id: 'invalid0001',
          accountId: site.accountId,
          siteId: site.siteId,
          visitorId: 'NOT-HEX',
          receivedAt: new Date().toISOString(),
          path: '/',
        }),
      },
      { key, value: 'not json at all' },
      { key, value: JSON.stringify(message(site, v, 'pageview', { path: '/' })) },
    ]);
    await waitForPageViews(site, v, 1);
    const letters = await readTopic(TOPICS.visitorsDeadLetter, { from, until: (all) => all.filter((m) => m.key === key).length >= 2 });
    const ours = letters.filter((m) => m.key === key);
    expect(ours.map((m) => m.headers['x-source-topic'])).toEqual([TOPICS.visitorsCollected, TOPICS.visitorsCollected]);
    expect(ours[0]!.headers['x-reason']).toMatch(/visitorId/);
    expect(ours[1]!.headers['x-reason']).toBe('not JSON');
  });
});
