// Limits against abuse through the real gateway: per API key on the lookups and /account (with
// RateLimit headers on every answer, errors included), per client address before credential
// look-ups reach Postgres, and a cap on the raw events kept per account in Redis.
import { Redis } from 'ioredis';
import { generateCredential } from '@glimpse/auth';
import {
  closeTestDb,
  createTestAccount,
  createTestApiKey,
  postEvent,
  request,
  startLookupStack,
  uniqueEmail,
  type HttpResult,
} from '../../../test/support/stack';
import { redisUrl } from '../../../test/config';
import { rawCopiesOf, rawKeysOf } from '../../../test/support/raw-copies';

const stacks: { stop(): Promise<void> }[] = [];
let redis: Redis;

beforeAll(() => {
  redis = new Redis(redisUrl());
});

afterAll(async () => {
  await Promise.all(stacks.map((s) => s.stop()));
  redis?.disconnect();
  await closeTestDb();
});

async function lookupStack(overrides: Record<string, string>) {
  const stack = await startLookupStack(overrides);
  stacks.push(stack);
  return stack.gateway.url;
}

const get = (url: string, key: string, headers: Record<string, string> = {}) => request(url, { headers: { authorization: `Bearer ${key}`, ...headers } });
const visitor = () => Array.from({ length: 24 }, () => '0123456789abcdef'[Math.floor(Math.random() * 16)]).join('');

function expectRateHeaders(res: HttpResult, limit: string): void {
  expect([res.status, res.headers.get('ratelimit-limit')]).toEqual([res.status, limit]);
  expect(res.headers.get('ratelimit-remaining')).toMatch(/^\d+$/);
  expect(res.headers.get('ratelimit-reset')).toMatch(/^[1-9]\d*$/);
}

describe('rate limits per API key', () => {
  it('when one key sends more lookups in a second than its limit, then the excess is 429 with Retry-After, every answer carries RateLimit headers, and another key is not affected', async () => {
    const url = await lookupStack({ LOOKUPS_RATE_LIMIT_PER_SECOND: '3' });
    const { accountId } = await createTestAccount();
    const { key } = await createTestApiKey(accountId, ['visitors:read']);
    const { key: other } = await createTestApiKey(accountId, ['visitors:read']);
    const answers = await Promise.all(Array.from({ length: 10 }, () => get(`${url}/visitors/${visitor()}/details`, key)));
    const statuses = answers.map((a) => a.status);
    expect(statuses.filter((s) => s === 404).length).toBeGreaterThanOrEqual(3);
    expect(statuses.filter((s) => s === 429).length).toBeGreaterThanOrEqual(4);
    for (const a of answers) expectRateHeaders(a, '3');
    const refused = answers.find((a) => a.status === 429)!;
    expect(refused.body).toMatchObject({ error: 'rate_limited' });
    expect(refused.headers.get('retry-after')).toMatch(/^[1-9]\d*$/);
    expect(refused.headers.get('ratelimit-remaining')).toBe('0');
    expect((await get(`${url}/visitors/${visitor()}/details`, other)).status).toBe(404);
  });

  it('when /account is called past its limit, then 429; and answers before authentication (no key, a malformed path) carry the address budget', async () => {
    const url = await lookupStack({ ACCOUNT_RATE_LIMIT_PER_SECOND: '2', AUTH_LOOKUPS_PER_IP_BURST: '50' });
    const { accountId } = await createTestAccount();
    const { key } = await createTestApiKey(accountId, ['account:manage', 'visitors:read']);
    const answers = await Promise.all(Array.from({ length: 8 }, () => get(`${url}/account/event-tokens`, key)));
    expect(answers.filter((a) => a.status === 429).length).toBeGreaterThanOrEqual(4);
    for (const a of answers) expectRateHeaders(a, '2');

    const noKey = await request(`${url}/account/api-keys`);
    expect(noKey.status).toBe(401);
    expectRateHeaders(noKey, '50');
    const badPath = await get(`${url}/visitors/%ZZ/details`, key);
    expect(badPath).toMatchObject({ status: 400, body: { error: 'invalid_request' } });
    expectRateHeaders(badPath, '50');
  });
});

describe('credential look-ups per client address', () => {
  it('when one address tries many made-up keys, then past its burst it gets 429 before any look-up, while another address, a repeated made-up key and a known key are unaffected', async () => {
    const url = await lookupStack({ AUTH_LOOKUPS_PER_IP_BURST: '3', AUTH_LOOKUPS_PER_IP_PER_SECOND: '1' });
    const { accountId } = await createTestAccount();
    const { key } = await createTestApiKey(accountId, ['visitors:read']);
    const from = (ip: string) => ({ 'x-forwarded-for': ip });
    // The known key is looked up (and cached) first, from an address of its own.
    expect((await get(`${url}/visitors/${visitor()}/details`, key, from('198.51.100.1'))).status).toBe(404);

    const madeUp = Array.from({ length: 6 }, () => generateCredential('api_key').plain);
    const attacker = from('203.0.113.66');
    const statuses: number[] = [];
    for (const k of madeUp) statuses.push((await get(`${url}/visitors/${visitor()}/details`, k, attacker)).status);
    expect(statuses).toEqual([401, 401, 401, 429, 429, 429]);
    const limited = await get(`${url}/visitors/${visitor()}/details`, generateCredential('api_key').plain, attacker);
    expect(limited.headers.get('retry-after')).toMatch(/^[1-9]\d*$/);
    expect(limited.headers.get('ratelimit-remaining')).toBe('0');

    // Remembered as unknown: no look-up needed, so no budget spent, still 401.
    expect((await get(`${url}/visitors/${visitor()}/details`, madeUp[0]!, attacker)).status).toBe(401);
    expect((await get(`${url}/visitors/${visitor()}/details`, generateCredential('api_key').plain, from('198.51.100.2'))).status).toBe(401);
    expect((await get(`${url}/visitors/${visitor()}/details`, key, attacker)).status).toBe(404);
  });
});

describe('raw events kept per account', () => {
  it('when an account sends more events than the cap, then only the newest are kept in Redis, the older raw copies are deleted at once, and the recent answer counts them as dropped', async () => {
    const url = await lookupStack({ RAW_EVENTS_PER_ACCOUNT: '5' });
    const { accountId, token } = await createTestAccount();
    const { key } = await createTestApiKey(accountId, ['account:manage']);
    const sent: string[] = [];
    for (let i = 0; i < 9; i++) {
      const email = uniqueEmail(`cap${i}`);
      expect((await postEvent(url, token, { event: `capped_${i}`, email })).status).toBe(200);
      sent.push(`capped_${i}`);
      // The cap holds on every write, not only eventually.
      expect((await rawCopiesOf(redis, accountId)).map((c) => c.event)).toEqual(sent.slice(-5));
    }
    const copies = await rawCopiesOf(redis, accountId);
    expect(copies.map((c) => c.event)).toEqual(sent.slice(-5));
    // Nothing of the dropped copies is left in any of the account's streams.
    const streams = (await rawKeysOf(redis, accountId)).filter((k) => !k.endsWith(':rawmeta'));
    const entries = (await Promise.all(streams.map((k) => redis.xlen(k)))).reduce((a, b) => a + b, 0);
    expect(entries).toBe(5);
    const recent = await get(`${url}/account/events/recent`, key);
    expect(recent.status).toBe(200);
    expect(recent.body.items.map((e: { event: string }) => e.event)).toEqual(sent.slice(-5).reverse());
    expect(recent.body.dropped).toBe(4);
    expect(recent.body.nextCursor).toBeNull();
  });
});
