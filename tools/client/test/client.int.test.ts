// @glimpse/client against the real gateway, enrichment service, Redis, Postgres and Kafka: typed
// lookups and errors, the event queue batching by size and by time and flushing on shutdown,
// Retry-After honoured, and a retry after a lost answer that neither duplicates nor bills twice.
import { generatePerson, usageTotals } from '@glimpse/enrichment';
import { TOPICS } from '@glimpse/messaging';
import { closeTestDb, createTestAccount, createTestApiKey, startLookupStack, testDb, uniqueEmail, waitFor } from '../../../test/support/stack';
import { endOffsets, ofAccount, readTopic, type Offsets } from '../../../test/support/kafka-helpers';
import { cli, importPersonRecords, randomSeed } from '../../../services/enrichment/test/lookup-test-helpers';
import { createGlimpseClient, GlimpseError, NotFoundError, type GlimpseClientOptions } from '../src';

const seed = randomSeed();
const people = [0, 1].map((i) => generatePerson(i, seed));
const [ada, bob] = people as [ReturnType<typeof generatePerson>, ReturnType<typeof generatePerson>];

let stack: Awaited<ReturnType<typeof startLookupStack>>;

beforeAll(async () => {
  stack = await startLookupStack({ LOOKUPS_RATE_LIMIT_PER_SECOND: '2' });
  await importPersonRecords(people);
});

afterAll(async () => {
  await stack.stop();
  await closeTestDb();
});

interface Seen {
  method: string;
  path: string;
  status: number;
  idempotencyKey: string | null;
}

/** The real fetch, recording each call; `loseFirstAnswerOf` drops the first answer of that path after the gateway has acted on it. */
function recordingFetch(seen: Seen[], loseFirstAnswerOf?: string): typeof fetch {
  let lost = false;
  return async (input, init) => {
    const url = new URL(String(input));
    const res = await fetch(input, init);
    const idempotencyKey = new Headers(init?.headers).get('idempotency-key');
    if (!lost && url.pathname === loseFirstAnswerOf) {
      lost = true;
      await res.text();
      seen.push({ method: init?.method ?? 'GET', path: url.pathname, status: 503, idempotencyKey });
      return new Response(JSON.stringify({ error: 'service_unavailable', message: 'answer lost on the way' }), {
        status: 503,
        headers: { 'content-type': 'application/json', 'retry-after': '0' },
      });
    }
    seen.push({ method: init?.method ?? 'GET', path: url.pathname, status: res.status, idempotencyKey });
    return res;
  };
}

async function setUp(extra: Partial<GlimpseClientOptions> = {}, credits?: number) {
  const account = await createTestAccount('client');
  const { key } = await createTestApiKey(account.accountId, ['enrichment:read', 'visitors:read']);
  if (credits !== undefined) expect((await cli('account', 'set-credits', '--account', account.accountId, '--credits', String(credits))).code).toBe(0);
  const seen: Seen[] = [];
  const client = createGlimpseClient({ baseUrl: stack.gateway.url, apiKey: key, eventToken: account.token, fetch: recordingFetch(seen), ...extra });
  return { account, client, seen };
}

async function eventsOf(accountId: string, from: Offsets, count: number) {
  const to = await endOffsets(TOPICS.eventsInbound);
  const mine = (m: Awaited<ReturnType<typeof readTopic>>) => ofAccount(m, accountId);
  return mine(await readTopic(TOPICS.eventsInbound, { from, to, until: (m) => mine(m).length >= count })).map((m) => m.json);
}

describe('lookups', () => {
  it('when a person is enriched, then the record is typed and the credits left are known; nobody is a NotFoundError', async () => {
    const { client } = await setUp({}, 10);
    const record = await client.enrich({ email: ada.traits.work_email! });
    expect(record.profile.id).toBe(ada.profile.id);
    expect(client.standing.creditsRemaining).toBe(9);
    const error = await client.enrich({ email: `nobody.${seed}@example.com` }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NotFoundError);
    expect(error).toMatchObject({ code: 'not_found', status: 404 });
    const bulk = await client.enrichBulk([{ email: bob.traits.work_email! }, { email: 'not an email' }]);
    expect(bulk.results.map((r) => r.status)).toEqual([200, 400]);
  });

  it("when a company is enriched by its site's address, then its record is typed and billed; an unknown domain is a NotFoundError", async () => {
    const { client } = await setUp({}, 10);
    // The persons imported above named their employers: the import stored those companies.
    const domain = ada.organization.primary_domain!;
    expect(await client.enrichCompany(`https://www.${domain}/`)).toMatchObject({ domain, name: ada.company.name });
    expect(client.standing.creditsRemaining).toBe(9);
    await expect(client.enrichCompany(`nobody-${seed}.example`)).rejects.toBeInstanceOf(NotFoundError);
    const bulk = await client.enrichCompanies([domain, 'not a domain']);
    expect(bulk).toMatchObject({ billed: 1, results: [{ status: 200, record: { domain } }, { status: 400 }] });
  });

  it('when the rate limit refuses calls, then the client waits as Retry-After says and every call succeeds', async () => {
    const { client, seen } = await setUp();
    const records = await Promise.all(Array.from({ length: 5 }, () => client.enrich({ email: ada.traits.work_email! })));
    expect(records.map((r) => r.profile.id)).toEqual(Array(5).fill(ada.profile.id));
    expect(seen.filter((s) => s.status === 429).length).toBeGreaterThan(0);
  });

  it('when the answer of an enrichment is lost and the call retried, then it carries the same Idempotency-Key and is billed once', async () => {
    const account = await createTestAccount('client lost answer');
    const { key } = await createTestApiKey(account.accountId, ['enrichment:read']);
    const seen: Seen[] = [];
    const client = createGlimpseClient({ baseUrl: stack.gateway.url, apiKey: key, fetch: recordingFetch(seen, '/visitors/enrichment') });
    const record = await client.enrich({ email: bob.traits.work_email! });
    expect(record.profile.id).toBe(bob.profile.id);
    expect(seen.map((s) => s.status)).toEqual([503, 200]);
    expect(seen[0]!.idempotencyKey).toEqual(seen[1]!.idempotencyKey);
    expect((await usageTotals(testDb('enrichment'), account.accountId)).enrichedRecords).toBe(1);
  });
});

describe('events', () => {
  it('when 250 events are tracked with batches of 100, then two batches leave at once, the rest on shutdown, and each event is recorded once', async () => {
    const { account, client, seen } = await setUp({ events: { maxBatch: 100, flushIntervalMs: 600_000 } });
    const from = await endOffsets(TOPICS.eventsInbound);
    for (let i = 0; i < 250; i++) client.track({ event: 'client_tracked', email: uniqueEmail('client') });
    expect(client.queuedEvents).toBe(50);
    await client.shutdown();
    expect(client.queuedEvents).toBe(0);
    expect(seen.filter((s) => s.path === '/events/batch').map((s) => s.status)).toEqual([200, 200, 200]);
    const events = await eventsOf(account.accountId, from, 250);
    expect(events).toHaveLength(250);
    expect(new Set(events.map((e) => e.email)).size).toBe(250);
  });

  it('when fewer events than a batch wait, then they leave after the flush interval without a flush()', async () => {
    const { client, seen } = await setUp({ events: { maxBatch: 100, flushIntervalMs: 100 } });
    client.track({ event: 'client_timed', email: uniqueEmail('client') });
    client.track({ event: 'client_timed', email: uniqueEmail('client') });
    await waitFor(async () => seen.some((s) => s.path === '/events/batch' && s.status === 200), { what: 'the timed batch' });
    expect(client.queuedEvents).toBe(0);
  });

  it('when a batch answer is lost, then the batch is retried with its key and no event is recorded twice; a refused event is reported', async () => {
    const account = await createTestAccount('client lost batch');
    const seen: Seen[] = [];
    const refused: [string, GlimpseError][] = [];
    const client = createGlimpseClient({
      baseUrl: stack.gateway.url,
      eventToken: account.token,
      fetch: recordingFetch(seen, '/events/batch'),
      events: { maxBatch: 10, onRejected: (event, error) => refused.push([event.email, error]) },
    });
    const from = await endOffsets(TOPICS.eventsInbound);
    for (let i = 0; i < 9; i++) client.track({ event: 'client_retried', email: uniqueEmail('client') });
    client.track({ event: 'client_retried', email: 'not an email' });
    await client.flush();
    expect(seen.map((s) => s.status)).toEqual([503, 200]);
    expect(seen[0]!.idempotencyKey).toEqual(seen[1]!.idempotencyKey);
    expect(refused).toEqual([['not an email', expect.objectContaining({ code: 'invalid_request' })]]);
    const events = await eventsOf(account.accountId, from, 9);
    expect(events).toHaveLength(9);
  });

  it('when one event is sent now, then its receipt names the id it was recorded with', async () => {
    const { account, client } = await setUp();
    const from = await endOffsets(TOPICS.eventsInbound);
    const { eventId } = await client.sendEvent({ event: 'client_single', email: uniqueEmail('client') });
    const [event] = await eventsOf(account.accountId, from, 1);
    expect(event.eventId).toBe(eventId);
  });
});
