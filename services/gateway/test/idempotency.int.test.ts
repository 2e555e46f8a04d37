// Idempotency-Key through the real gateway, Redis and Kafka: a key is bound to its event, a retry
// never gets 200 for an event that may yet be lost, and a failed send frees the key.
import { Redis } from 'ioredis';
import { TOPICS } from '@glimpse/messaging';
import { closeTestDb, createTestAccount, postEvent, startTestGateway, uniqueEmail, type TestAccount } from '../../../test/support/stack';
import { endOffsets, ofAccount, readTopic, type Offsets } from '../../../test/support/kafka-helpers';
import { redisUrl } from '../../../test/config';
import { eventFingerprint } from '../src/domain/accept-event';
import type { RunningGateway } from '../src/start';
import { freePort } from '../../../test/support/private-postgres';

const SEND_TIMEOUT_MS = 1500;
let gateway: RunningGateway;
let redis: Redis;
let account: TestAccount;

beforeAll(async () => {
  gateway = await startTestGateway({ KAFKA_SEND_TIMEOUT_MS: String(SEND_TIMEOUT_MS) });
  redis = new Redis(redisUrl());
  account = await createTestAccount('idempotency');
});

afterAll(async () => {
  await gateway?.stop();
  redis?.disconnect();
  await closeTestDb();
});

const withKey = (key: string) => ({ 'idempotency-key': key });
/** Where an event's Idempotency-Key lives in Redis: under the account's hash tag (the contract's layout, spelled out). */
const idemKey = (key: string) => `glimpse:{a:${account.accountId}}:idem:${key}`;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The account's messages on events.inbound since `from`, once `count` of them with `event` have come (and a moment more for strays). */
async function written(from: Offsets, event: string, count: number): Promise<unknown[]> {
  const of = (m: Awaited<ReturnType<typeof readTopic>>) => ofAccount(m, account.accountId).filter((x) => x.json?.event === event);
  const to = await endOffsets(TOPICS.eventsInbound);
  const messages = await readTopic(TOPICS.eventsInbound, { from, to, until: (m) => of(m).length >= count });
  return of(messages).map((m) => m.json);
}

describe('POST /events with an Idempotency-Key', () => {
  it('when a used key comes with a different event, then it is 422 idempotency_key_reused and only the first event is written; the same event in another key order is a duplicate', async () => {
    const from = await endOffsets(TOPICS.eventsInbound);
    const email = uniqueEmail();
    const first = await postEvent(gateway.url, account.token, { event: 'reuse_a', email, properties: { plan: 'pro', seats: 2 } }, withKey('reuse-1'));
    const other = await postEvent(gateway.url, account.token, { event: 'reuse_a', email, properties: { plan: 'team', seats: 2 } }, withKey('reuse-1'));
    const same = await postEvent(
      gateway.url,
      account.token,
      { email: email.toUpperCase(), properties: { seats: 2, plan: 'pro' }, event: 'reuse_a' },
      withKey('reuse-1'),
    );
    expect(first.status).toBe(200);
    expect(other).toMatchObject({ status: 422, body: { error: 'idempotency_key_reused', message: expect.stringMatching(/different event/) } });
    expect(same).toMatchObject({ status: 200, body: { ok: true } });
    const events = (await written(from, 'reuse_a', 1)) as { properties: Record<string, unknown> }[];
    expect(events).toHaveLength(1);
    expect(events[0]!.properties).toEqual({ plan: 'pro', seats: 2 });
    // The key is kept done, bound to the first event, for at most 24 h.
    expect(await redis.get(idemKey('reuse-1'))).toBe(`d:${eventFingerprint({ event: 'reuse_a', email, properties: { plan: 'pro', seats: 2 } })}`);
    const ttl = await redis.ttl(idemKey('reuse-1'));
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(86_400);
  });

  it('when five requests with one key arrive at once, then all are answered 200 and the event is written once', async () => {
    const from = await endOffsets(TOPICS.eventsInbound);
    const body = { event: 'together', email: uniqueEmail() };
    const answers = await Promise.all(Array.from({ length: 5 }, () => postEvent(gateway.url, account.token, body, withKey('together-1'))));
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200, 200]);
    await sleep(500);
    expect(await written(from, 'together', 1)).toHaveLength(1);
  });

  describe('when the key is held by a send still in flight (another gateway)', () => {
    const hold = async (key: string, body: { event: string; email: string }) => {
      const fp = eventFingerprint(body);
      await redis.set(idemKey(key), `p:${fp}`, 'PX', 10_000);
      return fp;
    };

    it('and it stays in flight past the send timeout, then the retry is 409 idempotency_key_in_flight with Retry-After, and nothing is written', async () => {
      const from = await endOffsets(TOPICS.eventsInbound);
      const body = { event: 'held_long', email: uniqueEmail() };
      await hold('held-1', body);
      const res = await postEvent(gateway.url, account.token, body, withKey('held-1'));
      expect(res).toMatchObject({ status: 409, body: { error: 'idempotency_key_in_flight' } });
      expect(res.headers.get('retry-after')).toBe('1');
      await sleep(500);
      expect(await written(from, 'held_long', 0)).toHaveLength(0);
    });

    it('and that send is then acknowledged, then the waiting retry is answered 200 without a second write', async () => {
      const from = await endOffsets(TOPICS.eventsInbound);
      const body = { event: 'held_done', email: uniqueEmail() };
      const fp = await hold('held-2', body);
      const retry = postEvent(gateway.url, account.token, body, withKey('held-2'));
      await sleep(300);
      await redis.set(idemKey('held-2'), `d:${fp}`, 'EX', 60);
      expect((await retry).status).toBe(200);
      await sleep(500);
      expect(await written(from, 'held_done', 0)).toHaveLength(0);
    });

    it('and that send then fails (the key is freed), then the waiting retry sends the event itself, once', async () => {
      const from = await endOffsets(TOPICS.eventsInbound);
      const body = { event: 'held_failed', email: uniqueEmail() };
      await hold('held-3', body);
      const retry = postEvent(gateway.url, account.token, body, withKey('held-3'));
      await sleep(300);
      await redis.del(idemKey('held-3'));
      expect((await retry).status).toBe(200);
      expect(await written(from, 'held_failed', 1)).toHaveLength(1);
    });
  });

  it('when the first send fails (its gateway cannot reach Kafka), then the key is freed and a retry with it elsewhere is recorded once', async () => {
    const broken = await startTestGateway({ KAFKA_BROKERS: `127.0.0.1:${await freePort()}`, KAFKA_SEND_TIMEOUT_MS: String(SEND_TIMEOUT_MS) });
    try {
      const from = await endOffsets(TOPICS.eventsInbound);
      const body = { event: 'failed_first', email: uniqueEmail() };
      const failed = await postEvent(broken.url, account.token, body, withKey('fail-1'));
      expect(failed).toMatchObject({ status: 503, body: { error: 'service_unavailable' } });
      expect(await redis.exists(idemKey('fail-1'))).toBe(0);
      expect((await postEvent(gateway.url, account.token, body, withKey('fail-1'))).status).toBe(200);
      expect((await postEvent(gateway.url, account.token, body, withKey('fail-1'))).status).toBe(200);
      await sleep(500);
      expect(await written(from, 'failed_first', 1)).toHaveLength(1);
    } finally {
      await broken.stop();
    }
  });
});
