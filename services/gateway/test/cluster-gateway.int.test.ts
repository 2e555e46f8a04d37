// The whole gateway on the six-node Redis Cluster of the test infrastructure (REDIS_CLUSTER_NODES),
// through HTTP: every path that uses Redis (raw copies on POST /events and /events/batch, the recent
// events and their pages, an event's Idempotency-Key, a lookup's Idempotency-Key, the per-account
// event limit shared by two gateways, the erasure of a person's raw copies, /collect's limits and
// the day's cookieless salt). Its REDIS_URL points where nothing listens, so a path that still used
// the single Redis would fail; and a command whose keys crossed slots would fail with CROSSSLOT:
// either would be counted in glimpse_redis_failures_total, which stays at zero after every test.
import { randomUUID } from 'node:crypto';
import { Cluster } from 'ioredis';
import { TOPICS } from '@glimpse/messaging';
import { generatePerson, importPersons } from '@glimpse/enrichment';
import {
  closeTestDb,
  createTestApiKey,
  postEvent,
  request,
  startManagementStack,
  startTestGateway,
  testDb,
  uniqueEmail,
  waitFor,
  type HttpResult,
} from '../../../test/support/stack';
import { endOffsets, readTopic } from '../../../test/support/kafka-helpers';
import { rawCopiesOf, rawKeysOf } from '../../../test/support/raw-copies';
import { redisClusterNodes, redisPassword } from '../../../test/config';
import { cookielessId } from '../src/domain/cookieless-id';
import { api, createManager, type Manager } from './management-helpers';
import type { RunningGateway } from '../src/start';

const EVENTS_PER_SECOND = 10;
const ORIGIN = 'https://cluster.example.test';
const BROWSER = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';

let stack: Awaited<ReturnType<typeof startManagementStack>>;
/** A second gateway on the same cluster, for the limit two gateways share. */
let second: RunningGateway;
let cluster: Cluster;

function gatewayEnv(): Record<string, string> {
  const password = redisPassword();
  return {
    REDIS_CLUSTER_NODES: redisClusterNodes().join(','),
    // Nothing listens on port 1: whatever still went to the single Redis would fail (and be counted).
    REDIS_URL: 'redis://127.0.0.1:1',
    EVENTS_RATE_LIMIT_PER_SECOND: String(EVENTS_PER_SECOND),
    ...(password ? { REDIS_PASSWORD: password } : {}),
  };
}

async function redisReady(url: string): Promise<void> {
  await waitFor(async () => ((await request(`${url}/readyz`)).body as { checks?: Record<string, string> }).checks?.redis === 'ok', {
    what: `${url} to reach the Redis Cluster`,
    timeoutMs: 20_000,
  });
}

beforeAll(async () => {
  stack = await startManagementStack(gatewayEnv(), { webhooks: true });
  second = await startTestGateway(gatewayEnv());
  cluster = new Cluster(
    redisClusterNodes().map((n) => ({ host: n.slice(0, n.lastIndexOf(':')), port: Number(n.slice(n.lastIndexOf(':') + 1)) })),
    { redisOptions: { password: redisPassword(), connectTimeout: 2000 } },
  );
  await Promise.all([redisReady(stack.gateway.url), redisReady(second.url)]);
  expect(cluster.nodes('master')).toHaveLength(3);
}, 120_000);

afterAll(async () => {
  await Promise.all([stack?.stop(), second?.stop()]);
  cluster?.disconnect();
  await closeTestDb();
});

/** The sum of a counter's series in a gateway's /metrics (0 when it has none). */
async function metric(url: string, name: string): Promise<number> {
  const text = (await request(`${url}/metrics`)).body as string;
  return text
    .split('\n')
    .filter((line) => line.startsWith(`${name}{`) || line.startsWith(`${name} `))
    .reduce((sum, line) => sum + Number(line.slice(line.lastIndexOf(' ') + 1)), 0);
}

afterEach(async () => {
  for (const url of [stack.gateway.url, second.url]) {
    // No Redis command failed (CROSSSLOT, a slot without a master, the single Redis), no copy was
    // missed, no limit fell back to the gateway's own counts.
    expect({ url, failures: await metric(url, 'glimpse_redis_failures_total') }).toEqual({ url, failures: 0 });
    expect({ url, missed: await metric(url, 'glimpse_raw_events_missed_total') }).toEqual({ url, missed: 0 });
    expect({ url, local: await metric(url, 'glimpse_rate_limit_local_total') }).toEqual({ url, local: 0 });
  }
});

const post = (url: string, path: string, token: string, body: unknown, headers: Record<string, string> = {}) =>
  request(`${url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}`, ...headers },
    body: JSON.stringify(body),
  });

/** Walks GET /account/events/recent with `limit` from the first page to the last. */
async function walk(manager: Manager, limit: number): Promise<{ eventId: string; event: string; email: string }[]> {
  const client = api(stack.gateway.url, manager.key);
  const items: { eventId: string; event: string; email: string }[] = [];
  let cursor: string | null = null;
  for (let pages = 0; pages < 50; pages++) {
    const res: HttpResult = await client.get(`/account/events/recent?limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`);
    expect(res.status).toBe(200);
    expect(res.body.items.length).toBeLessThanOrEqual(limit);
    expect(res.body.dropped).toBe(0);
    items.push(...res.body.items);
    cursor = res.body.nextCursor;
    if (cursor === null) break;
  }
  return items;
}

describe('a gateway on the Redis Cluster', () => {
  it('when events come one by one and in a batch, then their raw copies are streams of the account on the master of its slot, and the recent events list them newest first on every page size', async () => {
    const manager = await createManager();
    const sent: { event: string; email: string }[] = [];
    for (let i = 0; i < 3; i++) {
      const one = { event: `single_${i}`, email: uniqueEmail('one') };
      expect((await postEvent(stack.gateway.url, manager.token, one)).status).toBe(200);
      sent.push(one);
    }
    const batch = Array.from({ length: 4 }, (_, i) => ({ event: `batched_${i}`, email: uniqueEmail('batch') }));
    const res = await post(stack.gateway.url, '/events/batch', manager.token, { events: batch });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ accepted: 4, rejected: 0 });
    sent.push(...batch);

    const copies = await rawCopiesOf(cluster, manager.accountId);
    expect(copies.map((c) => ({ event: c.event, email: c.email }))).toEqual(sent);
    for (const key of await rawKeysOf(cluster, manager.accountId)) {
      expect(key.startsWith(`glimpse:{a:${manager.accountId}}:`)).toBe(true);
      const ttl = await cluster.ttl(key);
      expect(ttl).toBeGreaterThan(0);
      expect(ttl).toBeLessThanOrEqual(key.endsWith(':rawmeta') ? 86_400 + 600 : 86_400);
    }

    const newestFirst = [...copies].reverse().map((c) => c.eventId);
    for (const limit of [1, 2, 3, 7, 50]) expect((await walk(manager, limit)).map((e) => e.eventId)).toEqual(newestFirst);
    const bad = await api(stack.gateway.url, manager.key).get('/account/events/recent?cursor=%%%');
    expect(bad).toMatchObject({ status: 400, body: { error: 'invalid_request', message: expect.stringContaining('cursor is not valid') } });
  });

  it("when an event is sent again with its Idempotency-Key, then it is answered as the first one, kept once, and the key is in the account's slot", async () => {
    const manager = await createManager();
    const body = { event: 'order_placed', email: uniqueEmail('idem'), properties: { total: 42 } };
    const key = `order-${randomUUID()}`;
    const first = await postEvent(stack.gateway.url, manager.token, body, { 'idempotency-key': key });
    // The retry through the other gateway: the key is found in the cluster, not in a gateway's memory.
    const retry = await postEvent(second.url, manager.token, body, { 'idempotency-key': key });
    expect([first.status, retry.status]).toEqual([200, 200]);
    expect(retry.headers.get('x-event-id')).toBe(first.headers.get('x-event-id'));
    const reused = await postEvent(stack.gateway.url, manager.token, { ...body, properties: { total: 43 } }, { 'idempotency-key': key });
    expect(reused).toMatchObject({ status: 422, body: { error: 'idempotency_key_reused' } });

    expect((await rawCopiesOf(cluster, manager.accountId)).map((c) => c.eventId)).toEqual([first.headers.get('x-event-id')]);
    const redisKey = `glimpse:{a:${manager.accountId}}:idem:${key}`;
    expect(await cluster.get(redisKey)).toMatch(/^d:/);
    const ttl = await cluster.ttl(redisKey);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(86_400);
    expect(await cluster.call('CLUSTER', 'KEYSLOT', redisKey)).toBe(await cluster.call('CLUSTER', 'KEYSLOT', `glimpse:{a:${manager.accountId}}:rawmeta`));
  });

  it('when a lookup is retried with its Idempotency-Key, then the retry gets the first answer and is billed once', async () => {
    const manager = await createManager();
    const person = generatePerson(0, Math.floor(Math.random() * 1e9));
    await importPersons(
      (async function* () {
        yield JSON.stringify(person);
      })(),
      { db: testDb('enrichment'), defaultPhoneRegion: 'US' },
    );
    const { key: lookupKey } = await createTestApiKey(manager.accountId, ['enrichment:read']);
    const key = `lookup-${randomUUID()}`;
    const lookup = (url: string) => post(url, '/visitors/enrichment', lookupKey, { email: person.traits.work_email }, { 'idempotency-key': key });
    const first = await lookup(stack.gateway.url);
    expect(first.status).toBe(200);
    const retry = await lookup(stack.gateway.url);
    expect(retry.status).toBe(200);
    expect(retry.body).toEqual(first.body);

    const usage = await api(stack.gateway.url, manager.key).get('/account/usage');
    expect(usage.status).toBe(200);
    expect(usage.body.totals).toEqual({ identityMatches: 1, enrichedRecords: 1 });
    const kept = await cluster.get(`glimpse:{a:${manager.accountId}}:lidem:${key}`);
    expect(kept).toMatch(/^d:[^\n]+\n/); // done, with the answer it was given
  });

  it('when an account sends more events in a second than its limit through two gateways, then they count one window in the cluster and the excess is 429', async () => {
    const manager = await createManager();
    // Warm both gateways' credential caches outside the burst's second.
    for (const url of [stack.gateway.url, second.url])
      expect((await postEvent(url, manager.token, { event: 'warm_up', email: uniqueEmail() })).status).toBe(200);
    // Into the next second, a little past its start: a timer may fire a millisecond early, which left
    // t0 in the warm-ups' second and counted them with the burst (42 of 40 in a full run).
    await new Promise((r) => setTimeout(r, 1010 - (Date.now() % 1000)));
    const t0 = Date.now();
    const answers = await Promise.all(
      Array.from({ length: 40 }, (_, i) => postEvent(i % 2 ? second.url : stack.gateway.url, manager.token, { event: 'burst', email: uniqueEmail() })),
    );
    const t1 = Date.now();
    const windows = Math.floor(t1 / 1000) - Math.floor(t0 / 1000) + 1;
    // Read at once: a window's counter lives 2 s past its first request (EXPIRE 2), so on a loaded
    // machine a later read found some windows gone (16 of 40 counted in a full run).
    const counted = await Promise.all(
      Array.from({ length: windows }, (_, i) => cluster.get(`glimpse:{a:${manager.accountId}}:rate:events:${Math.floor(t0 / 1000) + i}`)),
    );
    const readWithinLife = Date.now() < Math.floor(t0 / 1000) * 1000 + 2000;
    const ok = answers.filter((a) => a.status === 200);
    const refused = answers.filter((a) => a.status !== 200);
    // Each gateway alone would take up to 10 a second: together they take no more than one limit.
    expect(windows).toBeLessThanOrEqual(3);
    expect(ok.length).toBeLessThanOrEqual(EVENTS_PER_SECOND * windows);
    expect(refused.length).toBeGreaterThan(0);
    for (const r of refused) {
      expect(r.status).toBe(429);
      expect(r.body).toMatchObject({ error: 'rate_limited' });
      expect(Number(r.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    }
    // Every request counted once, in the cluster's shared windows, when the read beat the first window's expiry.
    if (readWithinLife) expect(counted.reduce((sum, n) => sum + Number(n ?? 0), 0)).toBe(40);
    else expect(counted.reduce((sum, n) => sum + Number(n ?? 0), 0)).toBeLessThanOrEqual(40);
    expect((await rawCopiesOf(cluster, manager.accountId)).filter((c) => c.event === 'burst')).toHaveLength(ok.length);
  });

  it("when a person is erased through the management API, then their raw copies are gone from the cluster and everyone else's stay", async () => {
    const manager = await createManager();
    const person = uniqueEmail('erase');
    const bystander = uniqueEmail('stays');
    for (const [event, email] of [
      ['signed_up', person],
      ['signed_up', bystander],
      ['purchase', person],
      ['demo_booked', person],
    ] as const) {
      expect((await postEvent(stack.gateway.url, manager.token, { event, email })).status).toBe(200);
    }
    expect((await rawCopiesOf(cluster, manager.accountId)).filter((c) => c.email === person)).toHaveLength(3);

    const res = await api(stack.gateway.url, manager.key).del(`/account/persons/${encodeURIComponent(person)}`);
    expect(res.status).toBe(200);
    expect(res.body.deletedRawEvents).toBe(3);
    expect((await rawCopiesOf(cluster, manager.accountId)).map((c) => c.email)).toEqual([bystander]);
    for (const key of await rawKeysOf(cluster, manager.accountId)) {
      if (key.endsWith(':rawmeta')) continue;
      const info = (await cluster.call('XINFO', 'STREAM', key)) as unknown[];
      const field = (name: string) => Number(info[info.indexOf(name) + 1]);
      expect(field('entries-added')).toBe(field('length')); // rewritten, not only marked deleted
    }
    expect((await walk(manager, 10)).map((e) => e.email)).toEqual([bystander]);
  });

  it("when a visitor without consent sends a page view to /collect, then its cookieless id comes from the day salt in the cluster and the site's limits count there", async () => {
    const manager = await createManager();
    const created = await api(stack.gateway.url, manager.key).post('/account/sites', {
      name: 'Cluster',
      origins: [ORIGIN],
      track_events: ['signup'],
      consent: 'required',
    });
    expect(created.status).toBe(201);
    const site = { id: created.body.id as string, key: created.body.key as string };
    const address = `198.51.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250) + 1}`;
    const view = { type: 'pageview', id: `pv_${Date.now().toString(36)}`, url: `${ORIGIN}/pricing`, path: '/pricing', title: 'Pricing' };

    const from = await endOffsets(TOPICS.visitorsCollected);
    const t0 = Date.now();
    const res = await request(`${stack.gateway.url}/collect`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain;charset=UTF-8', 'user-agent': BROWSER, origin: ORIGIN, 'x-forwarded-for': address },
      body: JSON.stringify({ site: site.key, consent: 'pending', events: [view] }),
    });
    const t1 = Date.now();
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ vid: null, accepted: 1 });
    expect(res.headers.get('set-cookie')).toBeNull();
    const windows = Array.from({ length: Math.floor(t1 / 1000) - Math.floor(t0 / 1000) + 1 }, (_, i) => Math.floor(t0 / 1000) + i);
    const countedFor = async (subject: string, name: string) =>
      (await Promise.all(windows.map((w) => cluster.get(`glimpse:{${subject}}:rate:${name}:${w}`)))).reduce((sum, n) => sum + Number(n ?? 0), 0);
    // Read at once: a window's counter lives two seconds.
    expect([await countedFor(`s:${site.id}`, 'collect'), await countedFor(`ip:${address}`, 'collect_ip')]).toEqual([1, 1]);

    const to = await endOffsets(TOPICS.visitorsCollected);
    const [message] = (await readTopic(TOPICS.visitorsCollected, { from, to })).filter((m) => m.json?.siteId === site.id);
    expect(message?.json).toMatchObject({ type: 'pageview', cookieless: true });
    const day = String(message!.json!.receivedAt).slice(0, 10);
    const salt = await cluster.get(`glimpse:salt:${day}`);
    expect(salt).toMatch(/^[0-9a-f]{64}$/);
    expect(message!.json!.visitorId).toBe(cookielessId(Buffer.from(salt!, 'hex'), site.id, address, BROWSER));
  });
});
