// The segments' alerts on real Postgres and Kafka, with profiles seeded with their scores: the
// evaluation takes a new segment's members silently, then makes one entry per member entering in
// an alert window (none on a second evaluation, none when it leaves and comes back in the window,
// a new one in the next window), the outbox publishes it to visitors.segments (a valid
// segment.entered, keyed account:segment) and empties it, the retention deletes it once its window
// has passed; the digest goes once per account-local day at or after its hour; and the running
// service's own loop does the same.
import { randomUUID } from 'node:crypto';
import { createDb, type Db } from '@glimpse/db/visitors';
import { createBatchingProducer, segmentDigestSchema, segmentEnteredSchema, TOPICS, type BatchingProducer } from '@glimpse/messaging';
import { serviceDatabaseUrl } from '../../../test/config';
import { endOffsets, readTopic, testKafka } from '../../../test/support/kafka-helpers';
import { closeTestDb, testSql, waitFor } from '../../../test/support/stack';
import { startTestVisitorsService } from '../../../test/support/visitors';
import { evaluateSegments, publishEntries, purgeEntries, sendDigests } from '../src/data/segment-alerts';
import { createSegment, deleteAccountSegments, eraseSegmentEntries } from '../src/data/segment-repository';
import { saveAlertSettings } from '../src/data/alert-settings';
import { newAccount, rescore, seedVisitor } from './segment-seed';

let db: Db;
let producer: BatchingProducer;

beforeAll(async () => {
  db = createDb({ databaseUrl: serviceDatabaseUrl('visitors'), poolSize: 4 });
  producer = createBatchingProducer({ kafka: testKafka(), lingerMs: 1 });
  await producer.connect();
});

afterAll(async () => {
  await producer?.disconnect();
  await db?.$disconnect();
  await closeTestDb();
});

const MIN = 60_000;
// Every segment due in the lane's database, not a round's worth (earlier runs leave theirs).
const ALL = 100_000;
const HOUR = 60 * MIN;

async function entriesOf(segmentId: string) {
  return testSql().$queryRawUnsafe<{ member: string; window_start: Date; published_at: Date | null; message: Record<string, unknown> }[]>(
    `SELECT member, window_start, published_at, message FROM visitors.segment_entries WHERE segment_id = $1::uuid ORDER BY window_start`,
    segmentId,
  );
}

async function membersOf(segmentId: string) {
  const rows = await testSql().$queryRawUnsafe<{ member: string }[]>(
    `SELECT member FROM visitors.segment_members WHERE segment_id = $1::uuid ORDER BY member`,
    segmentId,
  );
  return rows.map((r) => r.member);
}

it('when a visitor enters a segment, then one entry per alert window reaches visitors.segments as a valid segment.entered, emptied once published and gone after its window', async () => {
  const accountId = newAccount();
  const site = randomUUID();
  // Mid-window (the 24 h windows start at 00:00 UTC), so an hour later is the same window.
  const t0 = new Date(Math.floor(Date.now() / (24 * HOUR)) * 24 * HOUR + 6 * HOUR);
  const segment = await createSegment(db, accountId, {
    name: 'Pricing readers',
    kind: 'visitors',
    filter: { min_score: 30, pages: { pattern: '/pricing*', within_days: 7 } },
    alertWindowHours: 24,
    keys: null,
  });
  const already = await seedVisitor(accountId, site, { score: 50, at: t0, pages: [{ path: '/pricing', at: t0 }] });
  await seedVisitor(accountId, site, { score: 10, at: t0, pages: [{ path: '/pricing', at: t0 }] });
  await seedVisitor(accountId, site, { score: 80, at: t0, pages: [{ path: '/blog', at: t0 }] });

  // The first evaluation takes who is in without announcing them.
  expect(await evaluateSegments(db, t0, 1000, ALL)).toBeGreaterThanOrEqual(1);
  expect(await membersOf(segment.id)).toEqual([already]);
  expect(await entriesOf(segment.id)).toEqual([]);

  const t1 = new Date(t0.getTime() + MIN);
  const pages = [1, 2, 3, 4, 5, 6].map((i) => ({ path: `/pricing/${i}`, at: new Date(t1.getTime() - i * 1000) }));
  const email = `seg-${accountId.slice(0, 8)}@example.com`;
  const newcomer = await seedVisitor(accountId, site, {
    score: 60,
    at: t1,
    pages,
    email,
    company: { name: 'Acme Ltd', domain: 'acme.example' },
  });
  await evaluateSegments(db, t1, 1000, ALL);
  expect(await membersOf(segment.id)).toEqual([already, newcomer].sort());
  let entries = await entriesOf(segment.id);
  expect(entries.map((e) => e.member)).toEqual([newcomer]);

  // Again: nothing new. Out and back in within the window: a member again, no second entry.
  await evaluateSegments(db, new Date(t1.getTime() + MIN), 1000, ALL);
  await rescore(accountId, newcomer, 5, new Date(t1.getTime() + 2 * MIN));
  await evaluateSegments(db, new Date(t1.getTime() + 3 * MIN), 1000, ALL);
  expect(await membersOf(segment.id)).toEqual([already]);
  await rescore(accountId, newcomer, 70, new Date(t1.getTime() + 4 * MIN));
  await evaluateSegments(db, new Date(t1.getTime() + 5 * MIN), 1000, ALL);
  expect(await membersOf(segment.id)).toEqual([already, newcomer].sort());
  entries = await entriesOf(segment.id);
  expect(entries.map((e) => e.member)).toEqual([newcomer]);
  expect(entries[0]!.published_at).toBeNull();

  const from = await endOffsets(TOPICS.visitorsSegments);
  expect(await publishEntries(db, producer)).toBeGreaterThanOrEqual(1);
  const read = await readTopic(TOPICS.visitorsSegments, {
    from,
    until: (ms) => ms.some((m) => m.key === `${accountId}:${segment.id}`),
  });
  const sent = read.filter((m) => m.key === `${accountId}:${segment.id}`);
  expect(sent).toHaveLength(1);
  const message = segmentEnteredSchema.parse(sent[0]!.json);
  expect(message).toMatchObject({
    type: 'segment.entered',
    accountId,
    segmentId: segment.id,
    segmentName: 'Pricing readers',
    segmentKind: 'visitors',
    windowStart: new Date(Math.floor(t1.getTime() / (24 * HOUR)) * 24 * HOUR).toISOString(),
    at: t1.toISOString(),
    member: { kind: 'visitor', key: newcomer, email, name: 'Acme Ltd', domain: 'acme.example', score: 60, visitors: 1 },
  });
  expect(message.member.reasons).toEqual([{ reason: '60 page views', points: 60, at: t1.toISOString() }]);
  expect(message.member.location).toEqual({ country: 'DE', region: 'Berlin', city: 'Berlin', time_zone: 'Europe/Berlin' });
  expect(message.member.lastPages.map((p) => p.path)).toEqual(['/pricing/1', '/pricing/2', '/pricing/3', '/pricing/4', '/pricing/5']);

  // Published: the email is no longer in Postgres; a second publish sends nothing of it.
  entries = await entriesOf(segment.id);
  expect(entries[0]!.published_at).not.toBeNull();
  expect(entries[0]!.message).toEqual({});
  await publishEntries(db, producer);

  // The window passes: the entry goes; out and in again in the next window makes a new one.
  const next = new Date(t1.getTime() + 24 * HOUR);
  await purgeEntries(db, new Date(t1.getTime() + 12 * HOUR));
  expect(await entriesOf(segment.id)).toHaveLength(1);
  await purgeEntries(db, next);
  expect(await entriesOf(segment.id)).toHaveLength(0);
  await rescore(accountId, newcomer, 5, next);
  await evaluateSegments(db, new Date(next.getTime() + MIN), 1000, ALL);
  await rescore(accountId, newcomer, 90, new Date(next.getTime() + 2 * MIN));
  await rescore(accountId, already, 90, new Date(next.getTime() + 2 * MIN));
  await evaluateSegments(db, new Date(next.getTime() + 3 * MIN), 1000, ALL);
  entries = await entriesOf(segment.id);
  // `already` never left: no entry; the newcomer left and came back in a new window: one.
  expect(entries.map((e) => e.member)).toEqual([newcomer]);
  expect(entries[0]!.window_start.toISOString()).toBe(new Date(Math.floor(next.getTime() / (24 * HOUR)) * 24 * HOUR).toISOString());
});

it('when the account-local digest hour comes, then one segment.digest goes that day with the new members, the count and the top by score, and none again until the next day', async () => {
  const accountId = newAccount();
  const site = randomUUID();
  await saveAlertSettings(db, accountId, { time_zone: 'America/New_York', digest_hour: 9 });
  // 13:30 UTC on a December day is 08:30 in New York (EST, UTC-5): before the hour.
  const day = new Date(Math.floor(Date.now() / (24 * HOUR)) * 24 * HOUR);
  const before = new Date(day.getTime() + 13 * HOUR + 30 * MIN);
  const segment = await createSegment(db, accountId, { name: 'Hot companies', kind: 'companies', filter: { min_score: 20 }, alertWindowHours: 24, keys: null });
  for (const [score, company] of [
    [15, { name: 'Acme Ltd', domain: 'acme.example' }],
    [15, { name: 'Acme Ltd', domain: 'acme.example' }],
    [40, { name: 'Globex', domain: 'globex.example' }],
    [10, { name: 'Initech', domain: 'initech.example' }],
  ] as const)
    await seedVisitor(accountId, site, { score, at: new Date(before.getTime() - HOUR), company, pages: [{ path: '/pricing', at: before }] });
  await evaluateSegments(db, before, 1000, ALL);
  expect(await membersOf(segment.id)).toEqual(['acme.example', 'globex.example']);

  const localOffset = (at: Date) => Number(new Intl.DateTimeFormat('en-US', { timeZone: 'America/New_York', hour: 'numeric', hourCycle: 'h23' }).format(at));
  const from = await endOffsets(TOPICS.visitorsSegments);
  const mine = (ms: { key: string | null; json: unknown }[]) =>
    ms.filter((m) => m.key === `${accountId}:${segment.id}` && (m.json as { type?: string }).type === 'segment.digest');

  await sendDigests(db, producer, before, ALL);
  expect(localOffset(before)).toBeLessThan(9);
  const at = new Date(before.getTime() + HOUR);
  expect(localOffset(at)).toBeGreaterThanOrEqual(9);
  await sendDigests(db, producer, at, ALL);
  await sendDigests(db, producer, new Date(at.getTime() + 2 * HOUR), ALL);
  const nextDay = new Date(at.getTime() + 24 * HOUR);
  await sendDigests(db, producer, nextDay, ALL);
  const read = await readTopic(TOPICS.visitorsSegments, { from, until: (ms) => mine(ms).length >= 2, timeoutMs: 20_000 });
  const digests = mine(read).map((m) => segmentDigestSchema.parse(m.json));
  const localDay = (d: Date) => new Intl.DateTimeFormat('en-CA', { timeZone: 'America/New_York' }).format(d);
  expect(digests.map((d) => d.day)).toEqual([localDay(at), localDay(nextDay)]);
  expect(digests[0]).toMatchObject({ type: 'segment.digest', accountId, segmentId: segment.id, segmentKind: 'companies', members: 2, newMembers: 2 });
  expect(digests[0]!.top.map((m) => [m.key, m.score, m.visitors])).toEqual([
    ['globex.example', 40, 1],
    ['acme.example', 30, 2],
  ]);
  // The next day's counts only who entered since the previous digest.
  expect(digests[1]).toMatchObject({ members: 2, newMembers: 0 });
  expect(digests[0]!.eventId).not.toBe(digests[1]!.eventId);
  const [row] = await testSql().$queryRawUnsafe<{ day: string }[]>(`SELECT digest_sent_on::text AS day FROM visitors.segments WHERE id = $1::uuid`, segment.id);
  expect(row!.day).toBe(localDay(nextDay));
});

it('when a person is erased before their entry is sent, then the entry goes; when the account is deleted, then its segments and settings go', async () => {
  const accountId = newAccount();
  const site = randomUUID();
  const t0 = new Date(Math.floor(Date.now() / (24 * HOUR)) * 24 * HOUR + 7 * HOUR);
  const segment = await createSegment(db, accountId, { name: 'Everyone scored', kind: 'visitors', filter: { min_score: 1 }, alertWindowHours: 24, keys: null });
  await saveAlertSettings(db, accountId, { time_zone: 'Europe/Paris', digest_hour: 8 });
  await evaluateSegments(db, t0, 1000, ALL);
  const email = `erase-${accountId.slice(0, 8)}@example.com`;
  await seedVisitor(accountId, site, { score: 20, at: t0, email });
  await seedVisitor(accountId, site, { score: 30, at: t0, email: null });
  await evaluateSegments(db, new Date(t0.getTime() + MIN), 1000, ALL);
  expect(await entriesOf(segment.id)).toHaveLength(2);

  expect(await eraseSegmentEntries(db, accountId, email)).toBe(1);
  const left = await entriesOf(segment.id);
  expect(left).toHaveLength(1);
  expect(JSON.stringify(left)).not.toContain(email);

  expect(await deleteAccountSegments(db, accountId)).toBe(2);
  expect(await entriesOf(segment.id)).toEqual([]);
  expect(await membersOf(segment.id)).toEqual([]);
  const settings = await testSql().$queryRawUnsafe<unknown[]>(`SELECT 1 FROM visitors.alert_settings WHERE account_id = $1::uuid`, accountId);
  expect(settings).toEqual([]);
});

it('when the visitors service runs, then its background loop evaluates a new segment, and a visitor entering it reaches visitors.segments', async () => {
  const service = await startTestVisitorsService({ SEGMENTS_EVALUATE_INTERVAL_MS: '1000' });
  try {
    const accountId = newAccount();
    const site = randomUUID();
    const segment = await createSegment(db, accountId, { name: 'Live', kind: 'visitors', filter: { min_score: 10 }, alertWindowHours: 1, keys: null });
    // The first evaluation takes the (empty) segment's members.
    await waitFor(
      async () =>
        (await testSql().$queryRawUnsafe<{ e: Date | null }[]>(`SELECT evaluated_at AS e FROM visitors.segments WHERE id = $1::uuid`, segment.id))[0]?.e,
      { what: 'the first evaluation' },
    );
    const from = await endOffsets(TOPICS.visitorsSegments);
    const visitor = await seedVisitor(accountId, site, { score: 25, at: new Date(), email: null });
    // The segment's digest may come first on the same key (the loop sends the digests due too).
    const entered = (m: { key: string | null; json: unknown }) =>
      m.key === `${accountId}:${segment.id}` && (m.json as { type?: string } | undefined)?.type === 'segment.entered';
    const read = await readTopic(TOPICS.visitorsSegments, { from, until: (ms) => ms.some(entered), timeoutMs: 30_000 });
    const message = segmentEnteredSchema.parse(read.find(entered)!.json);
    expect(message.member).toMatchObject({ kind: 'visitor', key: visitor, email: null, score: 25 });
    await waitFor(async () => (await entriesOf(segment.id))[0]?.published_at, { what: 'the entry marked published' });
    expect((await entriesOf(segment.id))[0]!.message).toEqual({});
  } finally {
    await service.stop();
  }
});
