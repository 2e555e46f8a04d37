// Each account's budget of Idempotency-Keys, through the real gateway and Redis: past its count (or
// bytes) a request with a new key is 429 idempotency_budget_exceeded with Retry-After, nothing is
// sent and the key is not stored; a retry of a key already held is still answered, a request
// without a key still goes through, and another account is untouched.
import { Redis } from 'ioredis';
import { TOPICS } from '@glimpse/messaging';
import { closeTestDb, createTestAccount, postEvent, request, startTestGateway, uniqueEmail } from '../../../test/support/stack';
import { endOffsets, ofAccount, readTopic } from '../../../test/support/kafka-helpers';
import { redisUrl } from '../../../test/config';
import type { RunningGateway } from '../src/start';

const KEYS = 5;
let byCount: RunningGateway;
let byBytes: RunningGateway;
let redis: Redis;

beforeAll(async () => {
  [byCount, byBytes] = await Promise.all([
    startTestGateway({ IDEMPOTENCY_KEYS_PER_ACCOUNT: String(KEYS) }),
    // About three keys' worth (each is counted as its Redis key, its value and 64 bytes).
    startTestGateway({ IDEMPOTENCY_KEY_BYTES_PER_ACCOUNT: '700' }),
  ]);
  redis = new Redis(redisUrl());
});

afterAll(async () => {
  await Promise.all([byCount?.stop(), byBytes?.stop()]);
  redis?.disconnect();
  await closeTestDb();
});

const withKey = (key: string) => ({ 'idempotency-key': key });
const idemKey = (accountId: string, key: string) => `glimpse:{a:${accountId}}:idem:${key}`;

describe("an account's budget of Idempotency-Keys", () => {
  it('when an account has used its count of keys, then a new key is 429 and neither sent nor stored, a held key and a keyless event still pass, and another account is unaffected', async () => {
    const [full, other] = await Promise.all([createTestAccount('idempotency budget'), createTestAccount('idempotency budget, other')]);
    const email = uniqueEmail();
    for (let i = 0; i < KEYS; i++) {
      expect((await postEvent(byCount.url, full.token, { event: 'budget_in', email }, withKey(`in-${i}`))).status).toBe(200);
    }
    const from = await endOffsets(TOPICS.eventsInbound);

    const refused = await postEvent(byCount.url, full.token, { event: 'budget_over', email }, withKey('over-1'));
    expect(refused).toMatchObject({ status: 429, body: { error: 'idempotency_budget_exceeded', message: expect.stringMatching(/budget/) } });
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(3600);
    expect(await redis.exists(idemKey(full.accountId, 'over-1'))).toBe(0);
    // A batch's items are keys too: each is refused the same way.
    const batch = await request(`${byCount.url}/events/batch`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${full.token}`, ...withKey('over-batch') },
      body: JSON.stringify({ events: [{ event: 'budget_over', email }] }),
    });
    expect(batch).toMatchObject({ status: 200, body: { accepted: 0, rejected: 1, results: [{ error: 'idempotency_budget_exceeded' }] } });

    // A retry of a key it holds is answered (a duplicate), and an event without a key is taken.
    expect((await postEvent(byCount.url, full.token, { event: 'budget_in', email }, withKey('in-0'))).status).toBe(200);
    expect((await postEvent(byCount.url, full.token, { event: 'budget_keyless', email })).status).toBe(200);
    // Another account has its own budget.
    for (let i = 0; i < KEYS; i++) {
      expect((await postEvent(byCount.url, other.token, { event: 'budget_other', email: uniqueEmail() }, withKey(`in-${i}`))).status).toBe(200);
    }

    const written = await readTopic(TOPICS.eventsInbound, {
      from,
      until: (m) => ofAccount(m, full.accountId).some((x) => x.json?.event === 'budget_keyless'),
    });
    expect(ofAccount(written, full.accountId).map((m) => m.json?.event)).toEqual(['budget_keyless']);
  });

  it('when an account has used its bytes of keys, then a new key is 429 idempotency_budget_exceeded, and another account is unaffected', async () => {
    const [full, other] = await Promise.all([createTestAccount('idempotency bytes'), createTestAccount('idempotency bytes, other')]);
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) statuses.push((await postEvent(byBytes.url, full.token, { event: 'bytes', email: uniqueEmail() }, withKey(`b-${i}`))).status);
    expect(statuses.slice(0, 2)).toEqual([200, 200]);
    expect(statuses.at(-1)).toBe(429);
    expect((await postEvent(byBytes.url, other.token, { event: 'bytes', email: uniqueEmail() }, withKey('b-0'))).status).toBe(200);
  });
});
