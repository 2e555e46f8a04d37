// Every Redis code path of the gateway, run against a single Redis and against the real six-node
// Redis Cluster of the test infrastructure: raw copies (save, budgets, recent pages, erasure,
// expiry), rate limits, idempotency keys, the cookieless salt and the memory guard. On the
// cluster, a command that crossed slots would fail with CROSSSLOT; none may.
import { randomUUID } from 'node:crypto';
import { Cluster, Redis } from 'ioredis';
import type { InboundEvent } from '@glimpse/messaging';
import { redisUrl } from '../../../test/config';
import { waitFor } from '../../../test/support/stack';
import { rawCopiesOf, rawKeysOf } from '../../../test/support/raw-copies';
import { createRedisClient, type RedisClient } from '../src/data/redis-client';
import { parseClusterNodes } from '../src/config';
import { bucketExpiresAt, bucketOf, createRawEventStore, rawEventKeys, RAW_BUCKET_SECONDS, type RawEventStore } from '../src/data/raw-event-store';
import { encodeRawEvent } from '../src/data/raw-event-codec';
import { createRateLimiter } from '../src/data/rate-limiter';
import { createIdempotencyStore } from '../src/data/idempotency-store';
import { createDailySalt } from '../src/data/daily-salt';
import { createMemoryGuard } from '../src/data/memory-guard';

const clusterNodes = () =>
  parseClusterNodes(process.env.REDIS_CLUSTER_NODES ?? '127.0.0.1:7001,127.0.0.1:7002,127.0.0.1:7003,127.0.0.1:7004,127.0.0.1:7005,127.0.0.1:7006');

const MINUTE = 60_000;
/** A budget no test here reaches. */
const ROOMY = { maxCount: 1_000_000, maxBytes: 1024 ** 3 };

function event(accountId: string, receivedAtMs: number, overrides: Partial<InboundEvent> = {}): InboundEvent {
  return {
    eventId: randomUUID(),
    accountId,
    event: 'signed_up',
    email: `${randomUUID().slice(0, 8)}@example.com`,
    properties: { plan: 'pro', seats: 3, trial: true },
    receivedAt: new Date(receivedAtMs).toISOString(),
    ...overrides,
  };
}

describe.each([
  ['a single Redis', () => createRedisClient({ REDIS_URL: redisUrl() })],
  ['the six-node Redis Cluster', () => createRedisClient({ REDIS_URL: redisUrl(), REDIS_CLUSTER_NODES: clusterNodes() })],
])('on %s', (_name, connect) => {
  let redis: RedisClient;
  const failures: string[] = [];
  const onFailure = (operation: string, err: unknown) => failures.push(`${operation}: ${(err as Error).message}`);

  beforeAll(async () => {
    redis = connect();
    await redis.connect();
    if (redis instanceof Cluster) expect(redis.nodes('master')).toHaveLength(3);
  });
  afterAll(() => redis?.disconnect());
  afterEach(() => {
    // A CROSSSLOT or any other Redis error in a path that fails soft would hide here.
    expect(failures).toEqual([]);
    failures.length = 0;
  });

  describe('raw copies', () => {
    let store: RawEventStore;
    const dropped: number[] = [];
    beforeAll(() => {
      store = createRawEventStore({ redis, maxPerAccount: 1000, maxBytesPerAccount: 1024 * 1024, onFailure, onDropped: (n) => dropped.push(n) });
    });

    it('when events of several ten-minute buckets are saved, then every page walk lists them newest first, and every key expires within 24 h of its events', async () => {
      const accountId = randomUUID();
      const now = Date.now();
      // Oldest first, across four buckets; two in the same millisecond.
      const times = [now - 50 * MINUTE, now - 31 * MINUTE, now - 30 * MINUTE, now - 12 * MINUTE, now - 12 * MINUTE, now - MINUTE, now];
      const saved = times.map((t) => event(accountId, t));
      for (const e of saved) expect(await store.save(e)).toBe(true);

      const newestFirst = [...saved].reverse().map((e) => e.eventId);
      for (const limit of [1, 2, 3, 7, 50]) {
        const walked: string[] = [];
        let cursor: string | null = null;
        do {
          const page = await store.recent(accountId, { limit, cursor });
          expect(page.items.length).toBeLessThanOrEqual(limit);
          walked.push(...page.items.map((e) => e.eventId));
          cursor = page.next;
        } while (cursor !== null);
        expect(walked).toEqual(newestFirst);
      }
      const first = await store.recent(accountId, { limit: 50, cursor: null });
      expect(first.items[0]).toEqual({
        eventId: saved[6]!.eventId,
        event: 'signed_up',
        email: saved[6]!.email,
        properties: { plan: 'pro', seats: 3, trial: true },
        receivedAt: saved[6]!.receivedAt,
      });
      expect(first.dropped).toBe(0);

      const keys = await rawKeysOf(redis, accountId);
      const buckets = new Set(times.map(bucketOf));
      expect(keys).toHaveLength(buckets.size + 1); // the streams and the meta hash
      for (const bucket of buckets) {
        const key = rawEventKeys.bucket(accountId, bucket);
        const expiresAt = Number(await redis.call('EXPIRETIME', key));
        expect(expiresAt).toBe(bucketExpiresAt(bucket));
        // Every event of the bucket was received at or after its start: gone at most 24 h after.
        expect(expiresAt).toBeLessThanOrEqual(bucket * RAW_BUCKET_SECONDS + 86_400);
      }
      const metaTtl = await redis.ttl(rawEventKeys.meta(accountId));
      expect(metaTtl).toBeGreaterThan(0);
      expect(metaTtl).toBeLessThanOrEqual(86_400 + RAW_BUCKET_SECONDS);
    });

    it('when an account goes over its byte budget, then its oldest copies go, the answer and the callback count them, and another account keeps all of its own', async () => {
      const small = createRawEventStore({ redis, maxPerAccount: 1000, maxBytesPerAccount: 2000, onFailure, onDropped: (n) => dropped.push(n) });
      const [crowded, quiet] = [randomUUID(), randomUUID()];
      const now = Date.now();
      const quietEvents = [event(quiet, now - 5 * MINUTE), event(quiet, now - 4 * MINUTE)];
      for (const e of quietEvents) await small.save(e);
      const big = { note: 'x'.repeat(300) };
      const crowdedEvents = Array.from({ length: 20 }, (_, i) => event(crowded, now - (20 - i) * MINUTE, { properties: big }));
      dropped.length = 0;
      for (const e of crowdedEvents) expect(await small.save(e)).toBe(true);

      const size = encodeRawEvent(crowdedEvents[0]!).length;
      const fits = Math.floor(2000 / size);
      const page = await small.recent(crowded, { limit: 200, cursor: null });
      expect(page.items.map((e) => e.eventId)).toEqual(
        crowdedEvents
          .slice(-fits)
          .reverse()
          .map((e) => e.eventId),
      );
      expect(page.dropped).toBe(20 - fits);
      expect(dropped.reduce((a, b) => a + b, 0)).toBe(20 - fits);
      // What is left is what the budget accounts for: no copy is lost from the books.
      const copies = await rawCopiesOf(redis, crowded);
      expect(copies.map((c) => c.eventId).sort()).toEqual(page.items.map((e) => e.eventId).sort());
      expect(Number(await redis.hget(rawEventKeys.meta(crowded), 'B'))).toBe(copies.reduce((n, c) => n + encodeRawEvent({ ...c }).length, 0));

      const other = await small.recent(quiet, { limit: 200, cursor: null });
      expect(other.items.map((e) => e.eventId)).toEqual(quietEvents.map((e) => e.eventId).reverse());
      expect(other.dropped).toBe(0);
    });

    it('when an account goes over its copy budget, then only its newest copies are kept', async () => {
      const capped = createRawEventStore({ redis, maxPerAccount: 5, maxBytesPerAccount: 1024 * 1024, onFailure });
      const accountId = randomUUID();
      const now = Date.now();
      const events = Array.from({ length: 9 }, (_, i) => event(accountId, now - (9 - i) * 3 * MINUTE, { event: `capped_${i}` }));
      for (const e of events) await capped.save(e);
      const page = await capped.recent(accountId, { limit: 50, cursor: null });
      expect(page.items.map((e) => e.event)).toEqual(['capped_8', 'capped_7', 'capped_6', 'capped_5', 'capped_4']);
      expect(page.dropped).toBe(4);
      expect(await rawCopiesOf(redis, accountId)).toHaveLength(5);
    });

    it("when a person is erased, then their copies are gone from Redis (the streams rewritten, not only marked), and everyone else's stay with their order", async () => {
      const accountId = randomUUID();
      const now = Date.now();
      const gone = 'erase.me@example.com';
      const events = Array.from({ length: 12 }, (_, i) => event(accountId, now - (12 - i) * 4 * MINUTE, i % 3 === 0 ? { email: gone } : {}));
      for (const e of events) await store.save(e);

      expect(await store.erasePerson(accountId, gone)).toBe(4);
      const kept = events.filter((e) => e.email !== gone);
      const page = await store.recent(accountId, { limit: 50, cursor: null });
      expect(page.items.map((e) => e.eventId)).toEqual(kept.map((e) => e.eventId).reverse());
      for (const key of await rawKeysOf(redis, accountId)) {
        if (key === rawEventKeys.meta(accountId)) continue;
        // A rewritten stream holds only what it lists: no entry merely flagged deleted.
        const info = (await redis.call('XINFO', 'STREAM', key)) as unknown[];
        const field = (name: string) => Number(info[info.indexOf(name) + 1]);
        expect(field('entries-added')).toBe(field('length'));
        expect(await redis.call('DUMP', key)).not.toContain(gone);
        expect(Number(await redis.call('EXPIRETIME', key))).toBe(bucketExpiresAt(Number(key.split(':').pop())));
      }
      expect(Number(await redis.hget(rawEventKeys.meta(accountId), 'N'))).toBe(kept.length);
      expect(await store.erasePerson(accountId, gone)).toBe(0);
    });

    it('when a cursor is not one this API wrote, then it is 400', async () => {
      for (const cursor of ['%%%', Buffer.from('2026-01-01T00:00:00.000Z|x').toString('base64url'), Buffer.from('12:abc').toString('base64url')]) {
        await expect(store.recent(randomUUID(), { limit: 5, cursor })).rejects.toMatchObject({ code: 'invalid_request' });
      }
    });
  });

  describe('rate limits', () => {
    it('when several gateways count one subject, then they share its window', async () => {
      const limiters = [0, 1].map(() =>
        createRateLimiter({ redis, name: 'events', subjectKind: 'a', perSecond: 10, onFailure: (err) => onFailure('rate', err) }),
      );
      // The twelve takes must fall in one window: start just after a second begins (a timer may
      // fire a millisecond early: without the margin the first take could land in the second
      // before), and on a machine so loaded that they still spilled into the next second, again
      // with a new subject (a spill lets more than ten through).
      for (let attempt = 1; ; attempt++) {
        const subject = randomUUID();
        await new Promise((r) => setTimeout(r, 1000 - (Date.now() % 1000) + 20));
        const first = Math.floor(Date.now() / 1000);
        const decisions = [];
        for (let i = 0; i < 12; i++) decisions.push(await limiters[i % 2]!.take(subject));
        if (Math.floor(Date.now() / 1000) !== first && attempt < 5) continue;
        expect(decisions.filter((d) => d.allowed)).toHaveLength(10);
        expect(decisions.at(-1)).toMatchObject({ allowed: false, remaining: 0, limit: 10 });
        break;
      }
    });
  });

  describe('idempotency keys', () => {
    it('when a key is claimed, completed and claimed again, then the second claim finds it done with its answer', async () => {
      const idem = createIdempotencyStore({ redis, pendingTtlMs: 5000, onFailure, keyOf: rawEventKeys.lookupIdempotency, budget: ROOMY });
      const accountId = randomUUID();
      expect(await idem.claim(accountId, 'k1', 'fp1')).toEqual({ state: 'claimed' });
      expect(await idem.claim(accountId, 'k1', 'fp1')).toEqual({ state: 'pending', fingerprint: 'fp1' });
      await idem.complete(accountId, 'k1', 'fp1', '{"ok":true}');
      expect(await idem.claim(accountId, 'k1', 'fp2')).toEqual({ state: 'done', fingerprint: 'fp1', answer: '{"ok":true}' });
      expect(await idem.claim(accountId, 'k2', 'fp1')).toEqual({ state: 'claimed' });
      await idem.release(accountId, 'k2', 'fp1');
      expect(await idem.claim(accountId, 'k2', 'fp1')).toEqual({ state: 'claimed' });
      const ttl = await redis.ttl(rawEventKeys.lookupIdempotency(accountId, 'k1'));
      expect(ttl).toBeGreaterThan(0);
      expect(ttl).toBeLessThanOrEqual(86_400);
    });
  });

  describe('the cookieless salt', () => {
    it('when two gateways ask for the day salt, then both get the one stored in Redis', async () => {
      const fallbacks: unknown[] = [];
      const day = new Date(Date.UTC(2031, 0, Math.floor(Math.random() * 28) + 1));
      const [a, b] = [0, 1].map(() => createDailySalt({ redis, onFallback: (err) => fallbacks.push(err) }));
      const [saltA, saltB] = await Promise.all([a!.get(day), b!.get(day)]);
      expect(saltA.equals(saltB!)).toBe(true);
      expect(fallbacks).toEqual([]);
    });
  });

  describe('the memory guard', () => {
    it('when a master uses more than the raw share of its maxmemory, then raw copies to it are refused and counted as missed, and other keys are still written', async () => {
      const nodes = redis instanceof Cluster ? redis.nodes('master') : [redis as Redis];
      const before = await Promise.all(nodes.map(async (n) => ((await n.config('GET', 'maxmemory')) as string[])[1]!));
      try {
        // A limit far above what is used, with a share so small that every node is "full".
        await Promise.all(nodes.map((n) => n.config('SET', 'maxmemory', String(8 * 1024 ** 3))));
        const accountId = randomUUID();
        // Every key of the account has its hash tag, so its raw copies and idempotency keys share this one's master.
        const accountKey = rawEventKeys.idempotency(accountId, 'k');
        const guard = createMemoryGuard({ redis, fraction: 1e-7, intervalMs: 50 });
        // Until its first INFO memory answers, a guard admits everything: wait for that, not for a time.
        await waitFor(async () => !guard.admits(accountKey), { what: 'the guard to read the master as full' });
        const missed: string[] = [];
        const guarded = createRawEventStore({ redis, memoryGuard: guard, onFailure, onMissed: (reason) => missed.push(reason) });
        expect(await guarded.save(event(accountId, Date.now()))).toBe(false);
        expect(missed).toEqual(['memory_full']);
        expect(await rawCopiesOf(redis, accountId)).toEqual([]);
        // Idempotency keys have a larger share: above it, a claim is answered as if Redis were down…
        const keyFailures: string[] = [];
        const idem = createIdempotencyStore({
          redis,
          pendingTtlMs: 5000,
          onFailure: (op) => keyFailures.push(op),
          memoryGuard: guard,
          keysShare: 1e-7,
          budget: ROOMY,
        });
        expect(await idem.claim(accountId, 'k', 'fp')).toBeNull();
        expect(keyFailures).toEqual(['idempotency_memory_full']);
        expect(await redis.exists(rawEventKeys.idempotency(accountId, 'k'))).toBe(0);
        // …and below it the key is held while raw copies are still refused.
        const roomy = createIdempotencyStore({ redis, pendingTtlMs: 5000, onFailure, memoryGuard: guard, keysShare: 1, budget: ROOMY });
        expect(await roomy.claim(accountId, 'k', 'fp')).toEqual({ state: 'claimed' });
        guard.stop();
        const relaxed = createMemoryGuard({ redis, fraction: 1, intervalMs: 50 });
        const store = createRawEventStore({ redis, memoryGuard: relaxed, onFailure });
        expect(await store.save(event(accountId, Date.now()))).toBe(true);
        relaxed.stop();
      } finally {
        await Promise.all(nodes.map((n, i) => n.config('SET', 'maxmemory', before[i]!)));
      }
    });
  });
});

describe('when Redis cannot be reached', () => {
  let redis: RedisClient;
  beforeAll(() => {
    // Nothing listens on port 1.
    redis = createRedisClient({ REDIS_URL: 'redis://127.0.0.1:1' });
    redis.on('error', () => undefined);
    void redis.connect().catch(() => undefined);
  });
  afterAll(() => redis.disconnect());

  it("then limits keep limiting on this gateway's own counts, and a fail-closed limiter answers 503 with Retry-After once the grace has passed", async () => {
    let now = 1_000_000;
    const failures: unknown[] = [];
    let local = 0;
    const open = createRateLimiter({
      redis,
      name: 'events',
      subjectKind: 'a',
      perSecond: 3,
      onFailure: (e) => failures.push(e),
      onLocal: () => (local += 1),
      now: () => now,
    });
    const closing = createRateLimiter({
      redis,
      name: 'lookups',
      subjectKind: 'k',
      perSecond: 3,
      failClosedAfterMs: 3000,
      onFailure: (e) => failures.push(e),
      now: () => now,
    });
    const subject = randomUUID();
    const decisions = [];
    for (let i = 0; i < 5; i++) decisions.push((await open.take(subject)).allowed);
    expect(decisions).toEqual([true, true, true, false, false]);
    expect(local).toBe(5);
    expect(await closing.take(subject)).toMatchObject({ allowed: true });
    now += 2000;
    expect(await closing.take(subject)).toMatchObject({ allowed: true });
    now += 1500;
    await expect(closing.take(subject)).rejects.toMatchObject({ code: 'service_unavailable', headers: { 'Retry-After': '1' } });
    // The events limiter never closes.
    expect(await open.take(randomUUID())).toMatchObject({ allowed: true });
    expect(failures.length).toBeGreaterThan(0);
  });

  it('then a raw copy is not written and is counted as missed, and reading recent events is 503', async () => {
    const missed: string[] = [];
    const store = createRawEventStore({ redis, onFailure: () => undefined, onMissed: (reason) => missed.push(reason) });
    expect(await store.save(event(randomUUID(), Date.now()))).toBe(false);
    expect(missed).toEqual(['redis_unavailable']);
    await expect(store.recent(randomUUID(), { limit: 5, cursor: null })).rejects.toMatchObject({ code: 'service_unavailable' });
  });
});
