// POST /events/batch and X-Event-Id through the real gateway, Redis and Kafka: results in order,
// every accepted item on events.inbound with the id it was answered with, the limits, the rate
// limit counting items, and a retried batch accepted once.
import { TOPICS } from '@glimpse/messaging';
import { closeTestDb, createTestAccount, postEvent, request, startTestGateway, uniqueEmail, type TestAccount } from '../../../test/support/stack';
import { endOffsets, ofAccount, readTopic, type Offsets } from '../../../test/support/kafka-helpers';
import type { RunningGateway } from '../src/start';

let gateway: RunningGateway;
let account: TestAccount;

beforeAll(async () => {
  gateway = await startTestGateway({ EVENTS_RATE_LIMIT_PER_SECOND: '200' });
  account = await createTestAccount('batch');
});

afterAll(async () => {
  await gateway?.stop();
  await closeTestDb();
});

function postBatch(body: unknown, { token = account.token, headers = {} }: { token?: string; headers?: Record<string, string> } = {}) {
  return request(`${gateway.url}/events/batch`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}`, ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

/** The account's messages with `event` on events.inbound since `from`, once `count` have come. */
async function written(accountId: string, from: Offsets, event: string, count: number) {
  const of = (m: Awaited<ReturnType<typeof readTopic>>) => ofAccount(m, accountId).filter((x) => x.json?.event === event);
  const to = await endOffsets(TOPICS.eventsInbound);
  return of(await readTopic(TOPICS.eventsInbound, { from, to, until: (m) => of(m).length >= count })).map((m) => m.json);
}

describe('POST /events', () => {
  it('when an event is accepted, then X-Event-Id names the id it has on events.inbound and the body stays {ok:true}', async () => {
    const from = await endOffsets(TOPICS.eventsInbound);
    const res = await postEvent(gateway.url, account.token, { event: 'receipt_single', email: uniqueEmail() });
    expect(res).toMatchObject({ status: 200, body: { ok: true } });
    const id = res.headers.get('x-event-id');
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    const [event] = await written(account.accountId, from, 'receipt_single', 1);
    expect(event.eventId).toBe(id);
  });

  it('when an event is retried with its Idempotency-Key, then the retry carries the same X-Event-Id', async () => {
    const body = { event: 'receipt_retry', email: uniqueEmail() };
    const first = await postEvent(gateway.url, account.token, body, { 'idempotency-key': 'receipt-1' });
    const retry = await postEvent(gateway.url, account.token, body, { 'idempotency-key': 'receipt-1' });
    expect(retry.status).toBe(200);
    expect(retry.headers.get('x-event-id')).toBe(first.headers.get('x-event-id'));
  });
});

describe('POST /events/batch', () => {
  it('when a batch mixes valid and invalid events, then each gets its result in order and exactly the accepted ones are on events.inbound with their ids', async () => {
    const from = await endOffsets(TOPICS.eventsInbound);
    const emails = [uniqueEmail(), uniqueEmail(), uniqueEmail()];
    const res = await postBatch({
      events: [
        { event: 'batch_mixed', email: emails[0], properties: { plan: 'pro' } },
        { event: 'batch_mixed', email: 'not-an-email' },
        { event: 'batch_mixed', email: emails[1], extra: 1 },
        { event: 'batch_mixed', email: emails[2], properties: { n: 3 } },
        'a string',
        { event: 'batch_mixed', email: emails[0], properties: { big: 'x'.repeat(40_000) } },
      ],
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ accepted: 2, rejected: 4 });
    const r = res.body.results;
    expect(r).toHaveLength(6);
    expect(r[0]).toEqual({ ok: true, eventId: expect.any(String) });
    expect(r[1]).toEqual({ error: 'invalid_request', message: 'email must be a valid email address' });
    expect(r[2]).toEqual({ error: 'invalid_request', message: 'unknown field(s): extra; allowed: event, email, properties' });
    expect(r[3]).toEqual({ ok: true, eventId: expect.any(String) });
    expect(r[4]).toEqual({ error: 'invalid_request', message: 'body must be a JSON object' });
    expect(r[5]).toMatchObject({ error: 'payload_too_large' });

    const events = await written(account.accountId, from, 'batch_mixed', 2);
    expect(events).toHaveLength(2);
    expect(new Map(events.map((e) => [e.eventId, e.email]))).toEqual(
      new Map([
        [r[0].eventId, emails[0]],
        [r[3].eventId, emails[2]],
      ]),
    );
  });

  it('when a batch is retried with the same Idempotency-Key, then it answers the same ids and every event is written once', async () => {
    const from = await endOffsets(TOPICS.eventsInbound);
    const body = { events: Array.from({ length: 20 }, () => ({ event: 'batch_retry', email: uniqueEmail() })) };
    const first = await postBatch(body, { headers: { 'idempotency-key': 'batch-retry-1' } });
    const retry = await postBatch(body, { headers: { 'idempotency-key': 'batch-retry-1' } });
    expect(first.body.accepted).toBe(20);
    expect(retry.body).toEqual(first.body);
    // A single event may use the same key: a batch's item keys never collide with it.
    const single = await postEvent(gateway.url, account.token, { event: 'batch_retry', email: uniqueEmail() }, { 'idempotency-key': 'batch-retry-1' });
    expect(single.status).toBe(200);
    const events = await written(account.accountId, from, 'batch_retry', 21);
    expect(events).toHaveLength(21);
    expect(new Set(events.map((e) => e.eventId)).size).toBe(21);
  });

  it('when a batch holds more events than the account may send in a second, then it is 429 with Retry-After and nothing is written', async () => {
    const other = await createTestAccount('batch limit');
    const from = await endOffsets(TOPICS.eventsInbound);
    const events = Array.from({ length: 201 }, () => ({ event: 'batch_limited', email: uniqueEmail() }));
    const res = await postBatch({ events }, { token: other.token });
    expect(res).toMatchObject({ status: 429, body: { error: 'rate_limited' } });
    expect(res.headers.get('retry-after')).toBe('1');
    expect(res.headers.get('ratelimit-limit')).toBe('200');
    expect(res.headers.get('ratelimit-remaining')).toBe('0');
    expect(await written(other.accountId, from, 'batch_limited', 0)).toHaveLength(0);
  });

  it('when the batch itself is malformed, too long or too large, then it is refused whole with a clear 4xx', async () => {
    const many = Array.from({ length: 501 }, () => ({ event: 'x', email: 'a@example.com' }));
    expect(await postBatch({ events: many })).toMatchObject({ status: 400, body: { error: 'invalid_request', message: 'a batch holds at most 500 events' } });
    expect(await postBatch({ events: [] })).toMatchObject({ status: 400, body: { message: 'events must hold at least one event' } });
    expect(await postBatch([{ event: 'x', email: 'a@example.com' }])).toMatchObject({ status: 400, body: { message: 'body must be a JSON object' } });
    expect(await postBatch({ events: {} })).toMatchObject({ status: 400, body: { message: 'events must be an array' } });
    const big = Array.from({ length: 20 }, () => ({ event: 'x', email: 'a@example.com', properties: { p: 'y'.repeat(30_000) } }));
    expect(await postBatch({ events: big })).toMatchObject({ status: 413, body: { error: 'payload_too_large' } });
    expect(await postBatch({ events: [] }, { token: 'wrong' })).toMatchObject({ status: 401 });
  });
});
