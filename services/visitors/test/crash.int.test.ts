// The built visitors service SIGKILLed mid-stream and started again in the same consumer group:
// every aggregate (profiles, sessions, site hours) equals a replay, one message at a time through
// the pure planner, of the messages as they lie on visitors.collected.
import { TOPICS, collectedSchema, type Collected } from '@glimpse/messaging';
import { replayOneByOne } from '../src/domain/collected-replay';
import { PROFILE_COLUMNS, profileFromRow, type ProfileRow } from '../src/data/collected-store';
import { endOffsets, readTopic } from '../../../test/support/kafka-helpers';
import { closeTestDb, testDb, waitFor } from '../../../test/support/stack';
import { startChildVisitorsService } from '../../../test/support/visitors';
import { closeProducer, message, newSite, newVisitorId, produceCollected } from './collected-messages';

afterAll(async () => {
  await closeProducer();
  await closeTestDb();
});

const VISITORS = 150;
const PAGE_VIEWS = 3000;

/** Page views (with engagement, identifies and the odd new campaign) over many visitors, spread over the last 20 hours. */
function stream(site: ReturnType<typeof newSite>): Collected[] {
  const ids = Array.from({ length: VISITORS }, newVisitorId);
  const start = Date.now() - 20 * 3_600_000;
  const out: Collected[] = [];
  for (let i = 0; i < PAGE_VIEWS; i++) {
    const v = ids[i % VISITORS]!;
    // Each visitor's views 20 hours / 20 views apart on average, jittered across the 30-minute line.
    const at = new Date(start + Math.floor(i / VISITORS) * 3_600_000 + ((i * 7919) % 50) * 60_000);
    out.push(message(site, v, 'pageview', { path: `/p${i % 13}`, title: `Page ${i % 13}`, ...(i % 17 === 0 ? { utm: { campaign: `c${i % 3}` } } : {}) }, at));
    if (i % 3 === 0) out.push(message(site, v, 'engagement', { pageViewId: 'pageview01', seconds: i % 90 }, new Date(at.getTime() + 5000)));
    if (i % 101 === 0) out.push(message(site, v, 'identify', { email: `crash${i % 5}@example.com` }, new Date(at.getTime() + 6000)));
  }
  return out;
}

const sumPageViews = async (accountId: string) =>
  (
    await testDb('visitors').$queryRawUnsafe<{ n: number }[]>(
      `SELECT coalesce(sum(page_views), 0)::int AS n FROM visitors.visitor_profiles WHERE account_id = $1::uuid`,
      accountId,
    )
  )[0]!.n;

it(`when the service is SIGKILLed mid-stream of ${PAGE_VIEWS} page views and restarted, then every aggregate equals a one-by-one replay of the messages sent`, async () => {
  const site = newSite();
  const messages = stream(site);
  const from = await endOffsets(TOPICS.visitorsCollected);
  // Small chunks: many transactions, so the kill lands between some of them.
  const first = await startChildVisitorsService({ VISITORS_MAX_BATCH: '50', VISITORS_CONCURRENCY: '2' });
  let second: Awaited<ReturnType<typeof startChildVisitorsService>> | undefined;
  try {
    await waitFor(async () => (await fetch(`${first.url}/readyz`).catch(() => undefined))?.ok, { what: 'the first service ready', timeoutMs: 30_000 });
    const sending = produceCollected(messages);
    sending.catch(() => undefined); // awaited below; a failure is reported there
    await waitFor(async () => (await sumPageViews(site.accountId)) > 300, { what: 'some page views applied', timeoutMs: 60_000, intervalMs: 20 });
    await first.kill('SIGKILL');
    await sending;
    const atKill = await sumPageViews(site.accountId);
    expect(atKill).toBeLessThan(PAGE_VIEWS);

    second = await startChildVisitorsService({ VISITORS_MAX_BATCH: '50', VISITORS_CONCURRENCY: '2', VISITORS_GROUP_ID: first.groupId });
    await waitFor(async () => (await sumPageViews(site.accountId)) === PAGE_VIEWS, {
      what: `${PAGE_VIEWS} page views applied after the restart`,
      timeoutMs: 120_000,
      intervalMs: 200,
    });
  } finally {
    await first.kill('SIGKILL');
    await second?.kill('SIGTERM');
  }

  // The expected state: the messages as they lie on the topic (offset order per partition), one at a time.
  const sent = await readTopic(TOPICS.visitorsCollected, { from, to: await endOffsets(TOPICS.visitorsCollected), timeoutMs: 60_000 });
  const ours = sent
    .filter((m) => m.json?.accountId === site.accountId)
    .sort((a, b) => a.partition - b.partition || Number(BigInt(a.offset) - BigInt(b.offset)))
    .map((m) => collectedSchema.parse(m.json));
  expect(ours).toHaveLength(messages.length);
  const expected = replayOneByOne(ours);

  const db = testDb('visitors');
  const profiles = (
    await db.$queryRawUnsafe<ProfileRow[]>(`SELECT ${PROFILE_COLUMNS} FROM visitors.visitor_profiles WHERE account_id = $1::uuid ORDER BY id`, site.accountId)
  ).map(profileFromRow);
  expect(profiles).toEqual([...expected.profiles.values()].sort((a, b) => (a.visitorId < b.visitorId ? -1 : 1)));

  const sessions = await db.$queryRawUnsafe<
    { visitor_id: string; number: number; started_at: Date; last_at: Date; page_views: number; landing_path: string | null; utm_campaign: string | null }[]
  >(
    `SELECT visitor_id, number, started_at, last_at, page_views, landing_path, utm_campaign FROM visitors.visitor_sessions WHERE account_id = $1::uuid ORDER BY visitor_id, number`,
    site.accountId,
  );
  const expectedSessions = [...expected.sessions.values()]
    .sort((a, b) => (a.visitorId === b.visitorId ? a.number - b.number : a.visitorId < b.visitorId ? -1 : 1))
    .map((s) => ({
      visitor_id: s.visitorId,
      number: s.number,
      started_at: s.startedAt,
      last_at: s.lastAt,
      page_views: s.pageViews,
      landing_path: s.landingPath,
      utm_campaign: s.utmCampaign,
    }));
  expect(sessions.map((s) => ({ ...s, started_at: new Date(s.started_at).toISOString(), last_at: new Date(s.last_at).toISOString() }))).toEqual(
    expectedSessions,
  );

  const hours = await db.$queryRawUnsafe<{ hour: Date; page_views: number; visitors: number; bots: number }[]>(
    `SELECT hour, page_views, visitors, bots FROM visitors.site_hours WHERE site_id = $1::uuid ORDER BY hour`,
    site.siteId,
  );
  expect(hours.map((h) => ({ hour: new Date(h.hour).toISOString(), pageViews: h.page_views, visitors: h.visitors, bots: h.bots }))).toEqual(
    [...expected.hours.values()]
      .sort((a, b) => a.hour.localeCompare(b.hour))
      .map(({ hour, pageViews, visitors, bots }) => ({ hour, pageViews, visitors, bots })),
  );
});
