// A Redis Cluster master SIGKILLed while events flow through a gateway, on a private six-node
// cluster (the shared one is left alone). While the account's slot has no master: no 500, every
// event answered 200 is in Kafka, the events limit still refuses a burst (this gateway's own
// counts), the raw copies not written are counted as missed, and the management API closes (503
// with Retry-After) after its grace. Once the replica is promoted everything works again by itself.
import { TOPICS } from '@glimpse/messaging';
import {
  closeTestDb,
  createTestAccount,
  createTestApiKey,
  postEvent,
  request,
  startTestGateway,
  uniqueEmail,
  type HttpResult,
  type TestAccount,
} from '../../../test/support/stack';
import { endOffsets, ofAccount, readTopic } from '../../../test/support/kafka-helpers';
import { startPrivateRedisCluster, type PrivateRedisCluster } from '../../../test/support/redis-cluster';
import { rawEventKeys } from '../src/data/raw-event-store';
import { rateLimitKey } from '../src/data/rate-limiter';
import type { RunningGateway } from '../src/start';

jest.setTimeout(120_000);

const LIMIT = 40;
// Well inside the cluster's node timeout (2 s): the slot is still without a master when it has passed.
const GRACE_MS = 500;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let cluster: PrivateRedisCluster;
let gateway: RunningGateway;
let account: TestAccount;

beforeAll(async () => {
  cluster = await startPrivateRedisCluster();
  gateway = await startTestGateway({
    REDIS_CLUSTER_NODES: cluster.nodes.join(','),
    EVENTS_RATE_LIMIT_PER_SECOND: String(LIMIT),
    REDIS_FAIL_CLOSED_AFTER_MS: String(GRACE_MS),
  });
  account = await createTestAccount();
});
afterAll(async () => {
  await gateway?.stop();
  await cluster?.stop();
  await closeTestDb();
});

async function metric(name: string): Promise<number> {
  const text = (await request(`${gateway.url}/metrics`)).body as string;
  let sum = 0;
  for (const line of text.split('\n')) if (line.startsWith(name)) sum += Number(line.split(' ').pop());
  return sum;
}

/** An API key whose rate-limit counter lives on the same master as the account's keys. */
async function keyOnMaster(master: string): Promise<{ id: string; key: string }> {
  for (let i = 0; i < 30; i++) {
    const candidate = await createTestApiKey(account.accountId, ['account:manage']);
    if ((await cluster.masterOf(rateLimitKey('account', 'k', candidate.id, 0))) === master) return candidate;
  }
  throw new Error('no API key hashed to the master in 30 tries');
}

it("when the master of an account's slot is killed during a stream of events, then nothing is lost, only 503s with Retry-After are refused, limits keep limiting, and it recovers by itself", async () => {
  const accountKey = rawEventKeys.meta(account.accountId);
  const slot = await cluster.keySlot(accountKey);
  const master = (await cluster.masterOf(accountKey))!;
  const apiKey = await keyOnMaster(master);
  const manage = (path: string) => request(`${gateway.url}${path}`, { headers: { authorization: `Bearer ${apiKey.key}` } });
  expect((await manage('/account/sites')).status).toBe(200);

  const from = await endOffsets(TOPICS.eventsInbound);
  const answers: { name: string; res: HttpResult }[] = [];
  let sent = 0;
  let streaming = true;
  // About 20 events a second, half the limit.
  const stream = (async () => {
    while (streaming) {
      const name = `failover_${sent++}`;
      answers.push({ name, res: await postEvent(gateway.url, account.token, { event: name, email: uniqueEmail() }) });
      await sleep(50);
    }
  })();

  let killedAt!: number;
  let closedAfterMs!: number;
  let closed: HttpResult;
  let burst: HttpResult[];
  try {
    await sleep(1000);
    killedAt = Date.now();
    expect((await cluster.killMaster(master)).addr).toBe(master);
    // While the slot has no master: the management API limits on this gateway's counts for a grace…
    await sleep(200);
    expect((await manage('/account/sites')).status).toBe(200);
    // …a burst of events over the limit is still refused (429), on local counts…
    // Three batches of 25 at once (the limit counts events): however slowly a loaded machine answers
    // them, at least two land in one second's window, 50 or more against the limit of 40.
    const batches = [0, 1, 2].map((b) => Array.from({ length: 25 }, (_, i) => ({ event: `burst_${b}_${i}`, email: uniqueEmail() })));
    burst = await Promise.all(
      batches.map((events) =>
        request(`${gateway.url}/events/batch`, {
          method: 'POST',
          headers: { authorization: `Bearer ${account.token}`, 'content-type': 'application/json' },
          body: JSON.stringify({ events }),
        }),
      ),
    );
    answers.push(...batches.flatMap((events, b) => events.map((e) => ({ name: e.event, res: burst[b]! }))));
    // …and past the grace the management API closes rather than limiting on one gateway's counts.
    await sleep(Math.max(0, killedAt + 200 + GRACE_MS + 150 - Date.now()));
    closed = await manage('/account/sites');
    closedAfterMs = Date.now() - killedAt;
    const promotion = await cluster.waitForPromotion(slot, { from: master, timeoutMs: 30_000 });
    expect(promotion.addr).not.toBe(master);
    // Recovery without help: writes and reads of the slot work again.
    await sleep(2500);
  } finally {
    streaming = false;
    await stream;
  }
  expect(burst.filter((r) => r.status === 429).length).toBeGreaterThan(0);
  expect({ status: closed.status, retryAfter: closed.headers.get('retry-after'), error: closed.body.error }).toEqual({
    status: 503,
    retryAfter: '1',
    error: 'service_unavailable',
  });

  const after = await waitUntilOk(() => manage('/account/events/recent?limit=1'));
  expect(after.status).toBe(200);
  expect((await manage('/account/sites')).status).toBe(200);
  const last = await postEvent(gateway.url, account.token, { event: 'after_failover', email: uniqueEmail() });
  answers.push({ name: 'after_failover', res: last });
  expect(last.status).toBe(200);

  // Only 200, 429 and 503 (with Retry-After) were ever answered.
  const statuses = new Set(answers.map((a) => a.res.status));
  for (const status of statuses) expect([200, 429, 503]).toContain(status);
  for (const { res } of answers.filter((a) => a.res.status === 503)) expect(res.headers.get('retry-after')).toBeTruthy();

  // Every event answered 200 is in Kafka.
  const accepted = answers.filter((a) => a.res.status === 200).map((a) => a.name);
  const to = await endOffsets(TOPICS.eventsInbound);
  const messages = await readTopic(TOPICS.eventsInbound, { from, to, until: (m) => ofAccount(m, account.accountId).length >= accepted.length });
  const inKafka = new Set(ofAccount(messages, account.accountId).map((m) => (m.json as { event: string }).event));
  expect(accepted.filter((name) => !inKafka.has(name))).toEqual([]);

  // Every accepted event's raw copy is readable, or was counted as missed.
  const readable = new Set<string>();
  let cursor: string | null = null;
  do {
    const page: HttpResult = await manage(`/account/events/recent?limit=200${cursor ? `&cursor=${cursor}` : ''}`);
    expect(page.status).toBe(200);
    for (const e of page.body.items as { event: string }[]) readable.add(e.event);
    cursor = page.body.nextCursor;
  } while (cursor);
  const missed = await metric('glimpse_raw_events_missed_total');
  const unaccounted = accepted.filter((name) => !readable.has(name)).length;
  expect(missed).toBeGreaterThan(0);
  expect(unaccounted).toBeLessThanOrEqual(missed);
  expect(readable.has('after_failover')).toBe(true);
  if (process.env.DEBUG_FAILOVER)
    console.log({
      closedAfterMs,
      statuses: [...statuses],
      accepted: accepted.length,
      readable: readable.size,
      missed,
      unaccounted,
      burst429: burst.filter((r) => r.status === 429).length,
    });

  // The killed node comes back as a replica of the promoted one.
  expect((await cluster.restart(master)).role).toBe('replica');
});

async function waitUntilOk(call: () => Promise<HttpResult>, timeoutMs = 15_000): Promise<HttpResult> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const res = await call();
    if (res.status === 200 || Date.now() > until) return res;
    await sleep(200);
  }
}
