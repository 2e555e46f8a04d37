// Recent raw events (Redis, last 24 h) and usage by day through the gateway's management API.
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { generatePerson, importPersons } from '@glimpse/enrichment';
import { closeTestDb, createTestApiKey, postEvent, request, startManagementStack, startTestGateway, testDb, uniqueEmail } from '../../../test/support/stack';
import { redisUrl } from '../../../test/config';
import { rawCopiesOf } from '../../../test/support/raw-copies';
import { createRawEventStore, type RawEventStore } from '../src/data/raw-event-store';
import { ISO_TIME, api, createManager, type Api } from './management-helpers';

let stack: Awaited<ReturnType<typeof startManagementStack>>;
let redis: Redis;
let store: RawEventStore;
const storeFailures: string[] = [];
beforeAll(async () => {
  stack = await startManagementStack();
  redis = new Redis(redisUrl());
  // The gateway's own store on the gateway's Redis: events written as a gateway would have.
  store = createRawEventStore({ redis, onFailure: (operation, err) => storeFailures.push(`${operation}: ${(err as Error).message}`) });
});
afterEach(() => {
  expect(storeFailures).toEqual([]);
});
afterAll(async () => {
  await stack?.stop();
  redis?.disconnect();
  await closeTestDb();
});

const HOUR = 3_600_000;

/** Writes a raw event with the gateway's raw store, as if received at `receivedAtMs`. */
async function writeRawEvent(accountId: string, receivedAtMs: number, eventId = randomUUID()) {
  const event = {
    eventId,
    accountId,
    event: 'written_directly',
    email: 'old@example.com',
    properties: { note: 'direct' },
    receivedAt: new Date(receivedAtMs).toISOString(),
  };
  expect(await store.save(event)).toBe(true);
  return event;
}

async function walk(client: Api, limit: number) {
  const items: { eventId: string }[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const res = await client.get(`/account/events/recent?limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`);
    expect(res.status).toBe(200);
    items.push(...res.body.items);
    cursor = res.body.nextCursor;
    pages += 1;
  } while (cursor !== null && pages < 50);
  return items;
}

describe('management API: recent events', () => {
  it('when events were posted, then they are listed newest first with their properties, and nothing else of the account is', async () => {
    const manager = await createManager();
    const client = api(stack.gateway.url, manager.key);
    const emails = [uniqueEmail('a'), uniqueEmail('b'), uniqueEmail('c')];
    for (const [i, email] of emails.entries()) {
      expect((await postEvent(stack.gateway.url, manager.token, { event: `step_${i}`, email, properties: { i, paid: i === 2, plan: 'pro' } })).status).toBe(
        200,
      );
      await new Promise((r) => setTimeout(r, 3));
    }

    const res = await client.get('/account/events/recent');
    expect(res.status).toBe(200);
    expect(res.body.nextCursor).toBeNull();
    expect(res.body.items).toEqual(
      [2, 1, 0].map((i) => ({
        eventId: expect.any(String),
        event: `step_${i}`,
        email: emails[i],
        properties: { i, paid: i === 2, plan: 'pro' },
        receivedAt: expect.stringMatching(ISO_TIME),
      })),
    );
    expect(res.body.dropped).toBe(0);
    const other = await createManager();
    expect((await api(stack.gateway.url, other.key).get('/account/events/recent')).body).toEqual({ items: [], nextCursor: null, dropped: 0 });
  });

  it('when an event is older than 24 h or its stream has expired, then it is not listed', async () => {
    const manager = await createManager();
    const now = Date.now();
    await writeRawEvent(manager.accountId, now - 25 * HOUR);
    await writeRawEvent(manager.accountId, now - 24 * HOUR - 1000);
    // Under 24 h old, but in a ten-minute stream that began more than 24 h ago: the stream is gone
    // (a copy lives at most 24 h after its stream's ten minutes began).
    const firstLiveBucket = Math.floor((now / 1000 - 86_400) / 600) + 1;
    const lastOfExpired = await writeRawEvent(manager.accountId, firstLiveBucket * 600_000 - 1);
    expect(Date.parse(lastOfExpired.receivedAt)).toBeGreaterThanOrEqual(now - 24 * HOUR);
    // A stream that expired (here: deleted) while the account's meta hash still counts its copy.
    const gone = await writeRawEvent(manager.accountId, now - HOUR);
    const goneKey = (await rawCopiesOf(redis, manager.accountId)).find((c) => c.eventId === gone.eventId)!.key;
    expect(await redis.del(goneKey)).toBe(1);
    const recent = await writeRawEvent(manager.accountId, now - 23 * HOUR);

    expect((await rawCopiesOf(redis, manager.accountId)).map((c) => c.eventId)).toEqual([recent.eventId]);
    const res = await api(stack.gateway.url, manager.key).get('/account/events/recent');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      items: [{ eventId: recent.eventId, event: 'written_directly', email: 'old@example.com', properties: { note: 'direct' }, receivedAt: recent.receivedAt }],
      nextCursor: null,
      dropped: 0,
    });
  });

  it('when recent events are walked with the cursor, then each comes exactly once, newest first, ties included', async () => {
    const manager = await createManager();
    const client = api(stack.gateway.url, manager.key);
    const posted: string[] = [];
    for (let i = 0; i < 4; i += 1) {
      const email = uniqueEmail();
      expect((await postEvent(stack.gateway.url, manager.token, { event: 'page_viewed', email })).status).toBe(200);
      posted.push(email);
    }
    // Three events received in the same millisecond: among them, the one written last comes first.
    const tie = Date.now() - HOUR;
    const ties: string[] = [];
    for (let i = 0; i < 3; i += 1) ties.push((await writeRawEvent(manager.accountId, tie)).eventId);

    const all = (await client.get('/account/events/recent?limit=200')).body.items as { eventId: string; email: string; receivedAt: string }[];
    expect(all).toHaveLength(7);
    expect(all.slice(0, 4).map((e) => e.email)).toEqual([...posted].reverse());
    expect(all.slice(4).map((e) => e.eventId)).toEqual([...ties].reverse());
    const times = all.map((e) => Date.parse(e.receivedAt));
    expect(times).toEqual([...times].sort((a, b) => b - a));
    for (const limit of [1, 2, 3, 6]) {
      const walked = await walk(client, limit);
      expect(walked.map((e) => e.eventId)).toEqual(all.map((e) => e.eventId));
    }
  });

  it('when raw events of an account are stored, then every key holding them expires within 86 400 s', async () => {
    const manager = await createManager();
    await postEvent(stack.gateway.url, manager.token, { event: 'signed_up', email: uniqueEmail(), properties: { a: 1 } });
    await postEvent(stack.gateway.url, manager.token, { event: 'signed_up', email: uniqueEmail() }, { 'Idempotency-Key': `k-${randomUUID()}` });

    const tag = `glimpse:{a:${manager.accountId}}`;
    const keys: string[] = [];
    let cursor = '0';
    do {
      const [next, found] = await redis.scan(cursor, 'MATCH', `${tag}:*`, 'COUNT', 1000);
      cursor = next;
      keys.push(...found);
    } while (cursor !== '0');
    expect(await rawCopiesOf(redis, manager.accountId)).toHaveLength(2);
    const streams = keys.filter((k) => k.startsWith(`${tag}:raw:`));
    expect(streams.length).toBeGreaterThanOrEqual(1); // one per ten minutes: two if the events straddle a boundary
    expect(keys.filter((k) => k.startsWith(`${tag}:idem:`))).toHaveLength(1);
    expect(keys).toContain(`${tag}:rawmeta`);
    expect(keys.filter((k) => !/:(raw:\d+|rawmeta|idem:.+|idembudget|rate:events:\d+)$/.test(k))).toEqual([]);
    for (const key of keys) {
      const ttl = await redis.ttl(key);
      if (key.startsWith(`${tag}:rate:`)) {
        // A one-second rate window: it may even have expired since the scan (-2).
        expect({ key, ok: ttl === -2 || (ttl > 0 && ttl <= 2) }).toEqual({ key, ok: true });
        continue;
      }
      if (key === `${tag}:rawmeta`) {
        // The meta hash holds no event data (budget counters per bucket) and outlives its newest stream by one bucket.
        const fields = Object.keys(await redis.hgetall(key));
        expect(fields.filter((f) => !/^(B|N|o|[bnd]:\d+)$/.test(f))).toEqual([]);
        expect({ key, ok: ttl > 0 && ttl <= 86_400 + 600 }).toEqual({ key, ok: true });
        continue;
      }
      if (key === `${tag}:idembudget`) {
        // The Idempotency-Key budget holds no event data (counts and bytes per hour) and counts a key for 25 h.
        const fields = Object.keys(await redis.hgetall(key));
        expect(fields.filter((f) => !/^(o|[nb]:\d+)$/.test(f))).toEqual([]);
        expect({ key, ok: ttl > 0 && ttl <= 25 * 3600 }).toEqual({ key, ok: true });
        continue;
      }
      expect({ key, ok: ttl > 0 && ttl <= 86_400 }).toEqual({ key, ok: true });
    }
  });

  it.each([
    ['limit=0', 'limit must be an integer from 1 to 200'],
    ['limit=201', 'limit must be an integer from 1 to 200'],
    ['cursor=%%%', 'cursor is not valid'],
    [`cursor=${Buffer.from(`2026-01-01T00:00:00.000Z|${'z'.repeat(36)}`).toString('base64url')}`, 'cursor is not valid'],
    ['since=1h', 'unknown query parameter "since"'],
  ])('when the query is %s, then it is 400 invalid_request', async (query, message) => {
    const { key } = await createManager();
    const res = await api(stack.gateway.url, key).get(`/account/events/recent?${query}`);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'invalid_request', message: expect.stringContaining(message) });
  });
});

describe('management API: usage', () => {
  const today = () => new Date().toISOString().slice(0, 10);

  it('when usage was recorded on some days, then the range lists every day (zeros elsewhere) and the totals', async () => {
    const { accountId, key } = await createManager();
    await testDb('enrichment').usageDay.createMany({
      data: [
        { accountId, day: new Date('2026-01-01T00:00:00Z'), identityMatches: 2, enrichedRecords: 2 },
        { accountId, day: new Date('2026-01-03T00:00:00Z'), identityMatches: 1, enrichedRecords: 1 },
        { accountId, day: new Date('2026-01-05T00:00:00Z'), identityMatches: 9, enrichedRecords: 9 },
      ],
    });
    const monthBefore = today().slice(0, 7);
    const res = await api(stack.gateway.url, key).get('/account/usage?from=2026-01-01&to=2026-01-03');
    const monthAfter = today().slice(0, 7);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      items: [
        { day: '2026-01-01', identityMatches: 2, enrichedRecords: 2 },
        { day: '2026-01-02', identityMatches: 0, enrichedRecords: 0 },
        { day: '2026-01-03', identityMatches: 1, enrichedRecords: 1 },
      ],
      totals: { identityMatches: 3, enrichedRecords: 3 },
      // The current month, whatever the range (the server's: the request may straddle a month's end): nobody's fields were disclosed.
      period: { start: expect.stringMatching(new RegExp(`^(?:${monthBefore}|${monthAfter})-01$`)), personsBilled: 0 },
    });
  });

  it('when a person is enriched through the gateway, then the default range (30 days up to today) counts it today', async () => {
    const { accountId, key } = await createManager();
    const person = generatePerson(0, Math.floor(Math.random() * 1e9));
    await importPersons(
      (async function* () {
        yield JSON.stringify(person);
      })(),
      { db: testDb('enrichment'), defaultPhoneRegion: 'US' },
    );
    const { key: lookupKey } = await createTestApiKey(accountId, ['enrichment:read']);
    const dayBefore = today();
    const enriched = await request(`${stack.gateway.url}/visitors/enrichment`, {
      method: 'POST',
      headers: { authorization: `Bearer ${lookupKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ email: person.traits.work_email }),
    });
    expect(enriched.status).toBe(200);

    const res = await api(stack.gateway.url, key).get('/account/usage');
    const dayAfter = today();
    expect(res.status).toBe(200);
    expect(res.body.items).toHaveLength(30);
    expect(res.body.totals).toEqual({ identityMatches: 1, enrichedRecords: 1 });
    if (dayBefore === dayAfter) {
      expect(res.body.items.at(-1)).toEqual({ day: dayAfter, identityMatches: 1, enrichedRecords: 1 });
      // An enrichment by email marks the person billed this month (a disclosure of them bills nothing more).
      expect(res.body.period).toEqual({ start: `${dayAfter.slice(0, 7)}-01`, personsBilled: 1 });
    } else {
      // Midnight (UTC) passed between the lookup and the read: it counts on one of the two days.
      const counted = res.body.items.filter((d: { identityMatches: number }) => d.identityMatches > 0).map((d: { day: string }) => d.day);
      expect(counted).toHaveLength(1);
      expect([dayBefore, dayAfter]).toContain(counted[0]);
    }
  });

  it.each([
    ['from=2026-13-01', 'from must be a date written YYYY-MM-DD'],
    ['to=yesterday', 'to must be a date written YYYY-MM-DD'],
    ['from=2026-02-02&to=2026-02-01', 'from must not be after to'],
    ['from=2020-01-01&to=2026-01-01', 'at most 366 days'],
    ['month=2026-01', 'unknown query parameter "month"'],
  ])('when the query is %s, then it is 400 invalid_request', async (query, message) => {
    const { key } = await createManager();
    const res = await api(stack.gateway.url, key).get(`/account/usage?${query}`);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'invalid_request', message: expect.stringContaining(message) });
  });
});

describe('management API: a dependency is down', () => {
  it('when Redis or the playbook service cannot be reached, then the calls that need them are 503 with Retry-After, and the rest still work', async () => {
    const { key } = await createManager();
    // Nothing listens on port 1: both connections are refused at once.
    const gateway = await startTestGateway({ REDIS_URL: 'redis://127.0.0.1:1', PLAYBOOK_URL: 'http://127.0.0.1:1', ENRICHMENT_URL: stack.enrichment.url });
    try {
      const client = api(gateway.url, key);
      for (const path of ['/account/events/recent', '/account/playbooks', '/account/events/catalog']) {
        const res = await client.get(path);
        expect({ path, status: res.status, error: res.body.error, retryAfter: res.headers.get('retry-after') }).toEqual({
          path,
          status: 503,
          error: 'service_unavailable',
          retryAfter: '1',
        });
      }
      expect((await client.get('/account/event-tokens')).status).toBe(200);
      expect((await client.get('/account/usage')).status).toBe(200);
    } finally {
      await gateway.stop();
    }
  });
});
