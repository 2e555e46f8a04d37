// POST /events refusals through the real gateway: each rule's status and {error, message} body, the
// rate limit, and that a refused event leaves nothing behind in Redis or on events.inbound.
import { Redis } from 'ioredis';
import { createApiKey, createEventToken, generateCredential, revokeCredential } from '@glimpse/auth';
import { TOPICS } from '@glimpse/messaging';
import { eventCatalog } from '@glimpse/playbook';
import {
  closeTestDb,
  createTestAccount,
  postEvent,
  request,
  startTestGateway,
  startTestPlaybookService,
  testDb,
  uniqueEmail,
  waitFor,
  type HttpResult,
  type TestAccount,
} from '../../../test/support/stack';
import { endOffsets, freshGroupAtEnd, ofAccount, readTopic } from '../../../test/support/kafka-helpers';
import { redisUrl } from '../../../test/config';
import { rawCopiesOf, rawKeysOf } from '../../../test/support/raw-copies';
import type { RunningGateway } from '../src/start';

let gateway: RunningGateway;
let playbook: { stop(): Promise<void> };
let redis: Redis;

beforeAll(async () => {
  // Its own group, starting at the end of events.inbound: no backlog from other runs to work through first.
  const groupId = await freshGroupAtEnd(TOPICS.eventsInbound, 'glimpse-playbook-test-validation');
  // No credential cache, so a revocation is visible to the very next request.
  [gateway, playbook] = await Promise.all([startTestGateway({ AUTH_CACHE_TTL_MS: '0' }), startTestPlaybookService({ PLAYBOOK_GROUP_ID: groupId })]);
  redis = new Redis(redisUrl());
});

afterAll(async () => {
  await Promise.all([gateway?.stop(), playbook?.stop()]);
  redis?.disconnect();
  await closeTestDb();
});

const BODY_LIMIT = 32 * 1024;

/** A JSON body of exactly `bytes` bytes that is otherwise a valid event. */
function bodyOfSize(email: string, bytes: number): string {
  const empty = JSON.stringify({ event: 'big_one', email, properties: { pad: '' } });
  return JSON.stringify({ event: 'big_one', email, properties: { pad: 'x'.repeat(bytes - empty.length) } });
}

function raw(url: string, init: { headers?: Record<string, string>; body?: string | Uint8Array }): Promise<HttpResult> {
  return request(`${url}/events`, { method: 'POST', headers: init.headers, body: init.body as BodyInit | undefined });
}

interface RefusalCase {
  name: string;
  status: number;
  error: string;
  message: RegExp;
  send(url: string, account: TestAccount, email: string): Promise<HttpResult>;
}

const valid = (email: string) => ({ event: 'demo_booked', email });
const json = (token: string) => ({ 'content-type': 'application/json', authorization: `Bearer ${token}` });

const refusals: RefusalCase[] = [
  // 401: credentials
  {
    name: 'the Authorization header is missing',
    status: 401,
    error: 'unauthorized',
    message: /missing bearer credential/,
    send: (url, _a, email) => postEvent(url, undefined, valid(email)),
  },
  {
    name: 'the Authorization header is not a bearer credential',
    status: 401,
    error: 'unauthorized',
    message: /missing bearer credential/,
    send: (url, a, email) => postEvent(url, undefined, valid(email), { authorization: `Basic ${a.token}` }),
  },
  {
    name: 'the bearer value is not a credential at all',
    status: 401,
    error: 'unauthorized',
    message: /this endpoint takes an event token/,
    send: (url, _a, email) => postEvent(url, 'not-a-token', valid(email)),
  },
  {
    name: 'the event token is well-formed but unknown',
    status: 401,
    error: 'unauthorized',
    message: /unknown or revoked/,
    send: (url, _a, email) => postEvent(url, generateCredential('event_token').plain, valid(email)),
  },
  {
    name: 'the event token has been revoked',
    status: 401,
    error: 'unauthorized',
    message: /unknown or revoked/,
    async send(url, a, email) {
      const extra = await createEventToken(testDb('identity'), a.accountId);
      await revokeCredential(testDb('identity'), 'event_token', a.accountId, extra.id);
      return postEvent(url, extra.secret, valid(email));
    },
  },
  {
    name: "the credential is one of the account's API keys",
    status: 401,
    error: 'unauthorized',
    message: /this endpoint takes an event token/,
    async send(url, a, email) {
      const key = await createApiKey(testDb('identity'), a.accountId, ['visitors:read', 'enrichment:read', 'account:manage']);
      return postEvent(url, key.secret, valid(email));
    },
  },
  // 415: content type
  {
    name: 'the Content-Type header is missing',
    status: 415,
    error: 'unsupported_media_type',
    message: /Content-Type: application\/json/,
    send: (url, a, email) => raw(url, { headers: { authorization: `Bearer ${a.token}` }, body: new TextEncoder().encode(JSON.stringify(valid(email))) }),
  },
  {
    name: 'the Content-Type is text/plain',
    status: 415,
    error: 'unsupported_media_type',
    message: /Content-Type: application\/json/,
    send: (url, a, email) => raw(url, { headers: { authorization: `Bearer ${a.token}`, 'content-type': 'text/plain' }, body: JSON.stringify(valid(email)) }),
  },
  {
    name: 'the body is form-encoded',
    status: 415,
    error: 'unsupported_media_type',
    message: /Content-Type: application\/json/,
    send: (url, a, email) =>
      raw(url, {
        headers: { authorization: `Bearer ${a.token}`, 'content-type': 'application/x-www-form-urlencoded' },
        body: `event=demo_booked&email=${email}`,
      }),
  },
  // 413: size
  {
    name: 'the body is one byte over 32 KB',
    status: 413,
    error: 'payload_too_large',
    message: /exceeds the 32768 byte limit/,
    send: (url, a, email) => raw(url, { headers: json(a.token), body: bodyOfSize(email, BODY_LIMIT + 1) }),
  },
  // 400: body
  {
    name: 'the body is not valid JSON',
    status: 400,
    error: 'invalid_request',
    message: /not valid JSON/,
    send: (url, a, email) => raw(url, { headers: json(a.token), body: `{"event":"demo_booked","email":"${email}"` }),
  },
  {
    name: 'the email is missing',
    status: 400,
    error: 'invalid_request',
    message: /^email is required$/,
    send: (url, a) => postEvent(url, a.token, { event: 'demo_booked' }),
  },
  {
    name: 'the email is not an email address',
    status: 400,
    error: 'invalid_request',
    message: /^email must be a valid email address$/,
    send: (url, a) => postEvent(url, a.token, { event: 'demo_booked', email: 'ann.example.com' }),
  },
  {
    name: 'the email is not a string',
    status: 400,
    error: 'invalid_request',
    message: /^email must be a string$/,
    send: (url, a) => postEvent(url, a.token, { event: 'demo_booked', email: 42 }),
  },
  {
    name: 'the event name is missing',
    status: 400,
    error: 'invalid_request',
    message: /^event is required$/,
    send: (url, a, email) => postEvent(url, a.token, { email }),
  },
  {
    name: 'the event name is 65 characters',
    status: 400,
    error: 'invalid_request',
    message: /^event must be 1 to 64 characters/,
    send: (url, a, email) => postEvent(url, a.token, { event: 'e'.repeat(65), email }),
  },
  {
    name: 'the event name contains a space',
    status: 400,
    error: 'invalid_request',
    message: /^event must be .*letters, digits, _ \. : -$/,
    send: (url, a, email) => postEvent(url, a.token, { event: 'demo booked', email }),
  },
  {
    name: 'the event name contains a slash',
    status: 400,
    error: 'invalid_request',
    message: /^event must be .*letters, digits/,
    send: (url, a, email) => postEvent(url, a.token, { event: 'demo/booked', email }),
  },
  {
    name: 'the event name has a non-ASCII letter',
    status: 400,
    error: 'invalid_request',
    message: /^event must be .*letters, digits/,
    send: (url, a, email) => postEvent(url, a.token, { event: 'démo', email }),
  },
  {
    name: 'a property is a nested object',
    status: 400,
    error: 'invalid_request',
    message: /^property values must be strings, numbers or booleans \(one level deep\) \(properties\.utm\)$/,
    send: (url, a, email) => postEvent(url, a.token, { ...valid(email), properties: { utm: { source: 'ads' } } }),
  },
  {
    name: 'a property is an array',
    status: 400,
    error: 'invalid_request',
    message: /^property values must be strings, numbers or booleans \(one level deep\) \(properties\.tags\)$/,
    send: (url, a, email) => postEvent(url, a.token, { ...valid(email), properties: { tags: ['a', 'b'] } }),
  },
  {
    name: 'properties is not an object',
    status: 400,
    error: 'invalid_request',
    message: /^properties must be an object$/,
    send: (url, a, email) => postEvent(url, a.token, { ...valid(email), properties: 'plan=pro' }),
  },
  {
    name: 'the body is a JSON array',
    status: 400,
    error: 'invalid_request',
    message: /^body must be a JSON object$/,
    send: (url, a, email) => postEvent(url, a.token, [valid(email)]),
  },
  {
    name: 'the body is a JSON string',
    status: 400,
    error: 'invalid_request',
    message: /^body must be a JSON object$/,
    send: (url, a) => postEvent(url, a.token, '"demo_booked"'),
  },
  {
    name: 'the body has an unknown field',
    status: 400,
    error: 'invalid_request',
    message: /^unknown field\(s\): timestamp; allowed: event, email, properties$/,
    send: (url, a, email) => postEvent(url, a.token, { ...valid(email), timestamp: 1_700_000_000 }),
  },
  {
    name: 'the Idempotency-Key header is malformed',
    status: 400,
    error: 'invalid_request',
    message: /^Idempotency-Key must be/,
    send: (url, a, email) => postEvent(url, a.token, valid(email), { 'idempotency-key': 'has spaces in it' }),
  },
];

/** Every key of the account in Redis (under its hash tag) but the rate-limit counters a request may touch. */
async function redisKeysOf(accountId: string): Promise<string[]> {
  const keys: string[] = [];
  let cursor = '0';
  do {
    const [next, found] = await redis.scan(cursor, 'MATCH', `glimpse:{a:${accountId}}:*`, 'COUNT', 1000);
    cursor = next;
    keys.push(...found.filter((k) => !k.startsWith(`glimpse:{a:${accountId}}:rate:`)));
  } while (cursor !== '0');
  return keys.sort();
}

const rawCopies = (accountId: string) => rawCopiesOf(redis, accountId);

describe('POST /events refusals', () => {
  it.each(refusals.map((c) => [c.name, c] as const))('when %s, then it is refused with the right status and an {error, message} body', async (_name, c) => {
    const account = await createTestAccount();

    const res = await c.send(gateway.url, account, uniqueEmail());

    expect(res.status).toBe(c.status);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.body).toEqual({ error: c.error, message: expect.stringMatching(c.message) });
  });

  it('when every refused request has been sent for an account, then none of them reached Redis or events.inbound', async () => {
    const account = await createTestAccount();
    const before = await endOffsets(TOPICS.eventsInbound);

    for (const c of refusals)
      expect({ case: c.name, status: (await c.send(gateway.url, account, uniqueEmail())).status }).toEqual({ case: c.name, status: c.status });
    expect(await redisKeysOf(account.accountId)).toEqual([]);

    // A valid sentinel sent last: once it is on the topic, anything the refusals had written would be too.
    const sentinelEmail = uniqueEmail('sentinel');
    expect((await postEvent(gateway.url, account.token, { event: 'sentinel', email: sentinelEmail })).status).toBe(200);
    const after = await endOffsets(TOPICS.eventsInbound);
    const messages = await readTopic(TOPICS.eventsInbound, {
      from: before,
      to: after,
      until: (read) => read.some((m) => m.json?.accountId === account.accountId && m.json?.event === 'sentinel'),
    });

    const mine = ofAccount(messages, account.accountId);
    expect(mine.map((m) => ({ key: m.key, event: m.json?.event, email: m.json?.email }))).toEqual([
      { key: `${account.accountId}:${sentinelEmail}`, event: 'sentinel', email: sentinelEmail },
    ]);
    // The sentinel's raw copy (its ten-minute stream) and the account's raw meta hash, nothing else.
    expect(await redisKeysOf(account.accountId)).toEqual(await rawKeysOf(redis, account.accountId));
    expect(await redisKeysOf(account.accountId)).toHaveLength(2);
    expect((await rawCopies(account.accountId)).map((c) => c.event)).toEqual(['sentinel']);
  });
});

describe('POST /events accepted at the edges of the rules', () => {
  it('when the body is exactly 32 KB and the event name 64 characters, then both are accepted', async () => {
    const { token } = await createTestAccount();

    const atLimit = await raw(gateway.url, { headers: json(token), body: bodyOfSize(uniqueEmail(), BODY_LIMIT) });
    const longName = await postEvent(gateway.url, token, { event: 'e'.repeat(64), email: uniqueEmail() });

    expect([atLimit.status, atLimit.body]).toEqual([200, { ok: true }]);
    expect([longName.status, longName.body]).toEqual([200, { ok: true }]);
  });

  it('when the email has spaces and capitals, then the raw copy in Redis holds it trimmed and lower-cased', async () => {
    const { accountId, token } = await createTestAccount();
    const email = uniqueEmail('Mixed.Case');

    const res = await postEvent(gateway.url, token, { event: 'signed_up', email: `  \t${email.toUpperCase()}  ` });

    expect(res.status).toBe(200);
    const copies = await rawCopies(accountId);
    expect(copies).toEqual([
      expect.objectContaining({ key: expect.stringContaining(`glimpse:{a:${accountId}}:raw:`), event: 'signed_up', email: email.toLowerCase() }),
    ]);
  });

  it('when a token works and is then revoked, then the next request with it is refused', async () => {
    const { accountId, token, tokenId } = await createTestAccount();
    expect((await postEvent(gateway.url, token, valid(uniqueEmail()))).status).toBe(200);

    await revokeCredential(testDb('identity'), 'event_token', accountId, tokenId);
    const res = await postEvent(gateway.url, token, valid(uniqueEmail()));

    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: 'unauthorized', message: 'invalid credential: unknown or revoked' });
  });
});

describe('POST /events rate limit', () => {
  let limited: RunningGateway;
  beforeAll(async () => {
    limited = await startTestGateway({ EVENTS_RATE_LIMIT_PER_SECOND: '3' });
  });
  afterAll(async () => {
    await limited?.stop();
  });

  it('when an account sends a burst over its per-second limit, then the excess gets 429 with Retry-After and only accepted events are kept', async () => {
    const { accountId, token } = await createTestAccount();

    const t0 = Date.now();
    const results = await Promise.all(Array.from({ length: 12 }, () => postEvent(limited.url, token, valid(uniqueEmail()))));
    const windows = Math.floor(Date.now() / 1000) - Math.floor(t0 / 1000) + 1; // fixed one-second windows the burst touched

    const ok = results.filter((r) => r.status === 200);
    const refused = results.filter((r) => r.status !== 200);
    expect(ok.length).toBeGreaterThanOrEqual(3);
    expect(ok.length).toBeLessThanOrEqual(3 * windows);
    expect(refused.length).toBeGreaterThan(0);
    for (const r of refused) {
      expect(r.status).toBe(429);
      expect(r.body).toEqual({ error: 'rate_limited', message: expect.stringMatching(/too many events/) });
      expect(Number(r.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    }
    expect(await rawCopies(accountId)).toHaveLength(ok.length);
  });

  it('when another account sends at the same time, then it is not limited by the first one', async () => {
    const [a, b] = await Promise.all([createTestAccount(), createTestAccount()]);

    const [burstA, oneB] = await Promise.all([
      Promise.all(Array.from({ length: 12 }, () => postEvent(limited.url, a.token, valid(uniqueEmail())))),
      postEvent(limited.url, b.token, valid(uniqueEmail())),
    ]);

    expect(burstA.some((r) => r.status === 429)).toBe(true);
    expect(oneB.status).toBe(200);
  });
});

describe('POST /events Idempotency-Key', () => {
  it('when the same key is sent twice, then both answer 200 but one message is written and counted; another key is another event', async () => {
    const { accountId, token } = await createTestAccount();
    const email = uniqueEmail();
    const before = await endOffsets(TOPICS.eventsInbound);

    const first = await postEvent(gateway.url, token, { event: 'order_placed', email }, { 'idempotency-key': 'order-1001' });
    const second = await postEvent(gateway.url, token, { event: 'order_placed', email }, { 'idempotency-key': 'order-1001' });
    const otherKey = await postEvent(gateway.url, token, { event: 'order_placed', email }, { 'idempotency-key': 'order-1002' });
    // Same person, so the same partition: once the sentinel is in the catalog, everything before it was applied.
    const sentinel = await postEvent(gateway.url, token, { event: 'sentinel', email });

    expect([first, second, otherKey, sentinel].map((r) => [r.status, r.body])).toEqual(Array(4).fill([200, { ok: true }]));
    const after = await endOffsets(TOPICS.eventsInbound);
    const messages = ofAccount(await readTopic(TOPICS.eventsInbound, { from: before, to: after }), accountId);
    expect(messages.map((m) => m.json?.event)).toEqual(['order_placed', 'order_placed', 'sentinel']);
    expect((await rawCopies(accountId)).map((c) => c.event)).toEqual(['order_placed', 'order_placed', 'sentinel']);

    await waitFor(async () => (await eventCatalog(testDb('playbook'), accountId)).some((e) => e.name === 'sentinel'), { what: 'the sentinel in the catalog' });
    const catalog = await eventCatalog(testDb('playbook'), accountId);
    expect(catalog.find((e) => e.name === 'order_placed')?.count).toBe(2); // order-1001 once, order-1002 once
  });
});
