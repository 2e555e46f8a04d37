// Every per-account resource has a cap that holds under concurrency, through the real gateway and
// the real services behind it (Postgres, Kafka, Redis): with the account cap-5 short of each cap,
// 20 creations at once make exactly 5 (the others 409 limit_reached, the message naming the cap):
// event tokens, API keys, playbooks, suppressions, sites, page rules, webhook endpoints; a
// playbook's triggers and exits under concurrent changes; the event catalog (a new name past its
// cap is applied but not catalogued, and the API says so); the paginated lists; the per-account
// rate limits that every API key of an account shares.
import { randomUUID } from 'node:crypto';
import { createApiKey, createEventToken, revokeCredential } from '@glimpse/auth';
import type { RunningGateway } from '@glimpse/gateway';
import type { RunningPlaybookService } from '@glimpse/playbook';
import type { RunningVisitorsService } from '@glimpse/visitors';
import type { RunningWebhooksService } from '@glimpse/webhooks';
import {
  closeTestDb,
  createTestApiKey,
  postEvent,
  request,
  startLookupStack,
  startTestGateway,
  startTestPlaybookService,
  testDb,
  uniqueEmail,
  waitFor,
  type HttpResult,
} from '../../../test/support/stack';
import { startTestVisitorsService } from '../../../test/support/visitors';
import { startTestWebhooksService } from '../../../test/support/webhooks';
import { api, createManager, seedCatalog, type Api, type Manager } from './management-helpers';

const CAP = 10;
/** The catalog's cap is the default one: every playbook service of a test run folds every account's names, so none may differ. */
const CATALOG_CAP = 1000;

let playbook: RunningPlaybookService;
let visitors: RunningVisitorsService;
let webhooks: RunningWebhooksService;
let gateway: RunningGateway;
const stops: (() => Promise<void>)[] = [];

beforeAll(async () => {
  [playbook, visitors, webhooks] = await Promise.all([
    startTestPlaybookService({
      PLAYBOOKS_PER_ACCOUNT: String(CAP),
      TRIGGERS_PER_PLAYBOOK: '5',
      EXITS_PER_PLAYBOOK: '5',
      SUPPRESSIONS_PER_ACCOUNT: String(CAP),
    }),
    startTestVisitorsService({ PAGE_RULES_PER_ACCOUNT: String(CAP) }),
    startTestWebhooksService({ WEBHOOKS_MAX_ENDPOINTS_PER_ACCOUNT: String(CAP) }),
  ]);
  gateway = await startTestGateway({
    PLAYBOOK_URL: playbook.url,
    VISITORS_URL: visitors.url,
    WEBHOOKS_URL: webhooks.url,
    EVENT_TOKENS_PER_ACCOUNT: String(CAP),
    API_KEYS_PER_ACCOUNT: String(CAP),
    SITES_PER_ACCOUNT: String(CAP),
  });
});
afterAll(async () => {
  await gateway?.stop();
  await Promise.all([playbook?.stop(), visitors?.stop(), webhooks?.stop(), ...stops.map((stop) => stop())]);
  await closeTestDb();
});

async function manager(): Promise<Manager & { client: Api }> {
  const m = await createManager();
  return { ...m, client: api(gateway.url, m.key) };
}

/** `n` calls at once; their answers in order. */
const atOnce = (n: number, call: (i: number) => Promise<HttpResult>) => Promise.all(Array.from({ length: n }, (_, i) => call(i)));

/** Exactly `created` of the answers are `status`, every other one 409 limit_reached naming the cap. */
function expectExactly(answers: HttpResult[], created: number, capWords: string, status = 201): void {
  const statuses = answers.map((a) => a.status);
  expect(statuses.filter((s) => s === status).length).toBe(created);
  expect(statuses.filter((s) => s === 409).length).toBe(answers.length - created);
  for (const refused of answers.filter((a) => a.status === 409)) {
    expect(refused.body).toEqual({ error: 'limit_reached', message: expect.stringContaining(capWords) });
  }
}

describe('caps per account under concurrent creations (20 at once, 5 short of the cap)', () => {
  it('event tokens: exactly 5 are created; a revoked one does not count', async () => {
    const m = await manager(); // it has one token already
    for (let i = 1; i < CAP - 5; i++) await createEventToken(testDb('identity'), m.accountId);
    const answers = await atOnce(20, () => m.client.post('/account/event-tokens'));
    expectExactly(answers, 5, `at most ${CAP} active event tokens`);
    expect(await testDb('identity').eventToken.count({ where: { accountId: m.accountId, revokedAt: null } })).toBe(CAP);

    await revokeCredential(testDb('identity'), 'event_token', m.accountId, m.tokenId);
    expect((await m.client.post('/account/event-tokens')).status).toBe(201);
    expect((await m.client.post('/account/event-tokens')).status).toBe(409);
  });

  it('API keys: exactly 5 are created', async () => {
    const m = await manager(); // its own key is one
    for (let i = 1; i < CAP - 5; i++) await createTestApiKey(m.accountId, ['visitors:read']);
    const answers = await atOnce(20, () => m.client.post('/account/api-keys', { scopes: ['visitors:read'] }));
    expectExactly(answers, 5, `at most ${CAP} active API keys`);
    expect(await testDb('identity').apiKey.count({ where: { accountId: m.accountId, revokedAt: null } })).toBe(CAP);
  });

  it('playbooks: exactly 5 are created', async () => {
    const m = await manager();
    for (let i = 0; i < CAP - 5; i++) expect((await m.client.post('/account/playbooks', { name: `before ${i}` })).status).toBe(201);
    const answers = await atOnce(20, (i) => m.client.post('/account/playbooks', { name: `at once ${i}` }));
    expectExactly(answers, 5, `${CAP} playbooks`);
    expect(await testDb('playbook').playbook.count({ where: { accountId: m.accountId } })).toBe(CAP);
  });

  it("a playbook's triggers and exits: more than the cap is 409; 20 changes at once leave exactly one change's lists", async () => {
    const m = await manager();
    const names = Array.from({ length: 6 }, (_, i) => `cap_name_${i}`);
    await seedCatalog(m.accountId, names);
    const over = await m.client.post('/account/playbooks', { name: 'Too many', triggers: names });
    expect(over).toMatchObject({ status: 409, body: { error: 'limit_reached', message: expect.stringContaining('at most 5 triggers') } });
    const created = await m.client.post('/account/playbooks', { name: 'Five', triggers: names.slice(0, 5), exits: names.slice(0, 5) });
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    expect((await m.client.patch(`/account/playbooks/${id}`, { exits: [...names, 'one_more'] })).body).toEqual({
      error: 'limit_reached',
      message: expect.stringContaining('at most 5 exits'),
    });

    // Each change replaces the lists with 5 names of its own: the lists never mix.
    const lists = Array.from({ length: 20 }, (_, i) => Array.from({ length: 5 }, (_, j) => `exit_${i}_${j}`));
    const answers = await atOnce(20, (i) => m.client.patch(`/account/playbooks/${id}`, { exits: lists[i] }));
    expect(answers.map((a) => a.status)).toEqual(Array(20).fill(200));
    const exits = (await testDb('playbook').playbookExit.findMany({ where: { playbookId: id }, select: { eventName: true } })).map((e) => e.eventName).sort();
    expect(exits).toHaveLength(5);
    expect(lists.map((l) => [...l].sort())).toContainEqual(exits);
  });

  it('suppressions: exactly 5 new ones; suppressing someone already suppressed still answers 200 at the cap', async () => {
    const m = await manager();
    const first = uniqueEmail('suppressed');
    expect((await m.client.post('/account/suppressions', { email: first })).status).toBe(201);
    for (let i = 1; i < CAP - 5; i++) expect((await m.client.post('/account/suppressions', { email: uniqueEmail('before') })).status).toBe(201);
    const answers = await atOnce(20, () => m.client.post('/account/suppressions', { email: uniqueEmail('at-once') }));
    expectExactly(answers, 5, `${CAP} suppressed people`);
    expect(await testDb('playbook').suppression.count({ where: { accountId: m.accountId } })).toBe(CAP);
    expect((await m.client.post('/account/suppressions', { email: first })).status).toBe(200);
  });

  it('sites: exactly 5 are created', async () => {
    const m = await manager();
    for (let i = 0; i < CAP - 5; i++) expect((await m.client.post('/account/sites', { name: `Site ${i}`, origins: [`https://s${i}.test`] })).status).toBe(201);
    const answers = await atOnce(20, (i) => m.client.post('/account/sites', { name: `At once ${i}`, origins: [`https://a${i}.test`] }));
    expectExactly(answers, 5, `at most ${CAP} sites`);
    expect(await testDb('identity').site.count({ where: { accountId: m.accountId } })).toBe(CAP);
  });

  it('page rules: exactly 5 are created', async () => {
    const m = await manager();
    for (let i = 0; i < CAP - 5; i++) expect((await m.client.post('/account/page-rules', { pattern: `/before/${i}*`, event: 'viewed' })).status).toBe(201);
    const answers = await atOnce(20, (i) => m.client.post('/account/page-rules', { pattern: `/at-once/${i}*`, event: 'viewed' }));
    expectExactly(answers, 5, `at most ${CAP} page rules`);
    expect((await m.client.get('/account/page-rules')).body.items).toHaveLength(CAP);
  });

  it('webhook endpoints: exactly 5 are created', async () => {
    const m = await manager();
    const url = (i: string) => `https://93.184.216.34/hooks/${i}`;
    for (let i = 0; i < CAP - 5; i++)
      expect((await m.client.post('/account/webhooks', { url: url(`b${i}`), events: ['enrollment.started'] })).status).toBe(201);
    const answers = await atOnce(20, (i) => m.client.post('/account/webhooks', { url: url(`a${i}`), events: ['enrollment.started'] }));
    expectExactly(answers, 5, `at most ${CAP} webhook endpoints`);
    expect((await m.client.get('/account/webhooks')).body.items).toHaveLength(CAP);
  });

  it('revoked credentials: only the most recently revoked are kept, so creating and revoking cannot grow the rows without bound', async () => {
    const m = await manager();
    const caps = { revokedKept: 3 };
    for (let i = 0; i < 6; i++) {
      const { id } = await createApiKey(testDb('identity'), m.accountId, ['visitors:read'], caps);
      await revokeCredential(testDb('identity'), 'api_key', m.accountId, id);
    }
    await createApiKey(testDb('identity'), m.accountId, ['visitors:read'], caps);
    // Its own active key, the new one, and the 3 revoked last.
    expect(await testDb('identity').apiKey.count({ where: { accountId: m.accountId, revokedAt: { not: null } } })).toBe(3);
    expect(await testDb('identity').apiKey.count({ where: { accountId: m.accountId } })).toBe(5);
  });
});

describe('token and key lists, a page at a time', () => {
  it('when an account has more tokens than a page, then the pages hold each once, newest first, and a bad cursor is 400', async () => {
    const m = await manager();
    for (let i = 0; i < 6; i++) await createEventToken(testDb('identity'), m.accountId);
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const res: HttpResult = await m.client.get(`/account/event-tokens?limit=3${cursor ? `&cursor=${cursor}` : ''}`);
      expect(res.status).toBe(200);
      seen.push(...res.body.items.map((t: { id: string }) => t.id));
      cursor = res.body.nextCursor;
      pages += 1;
    } while (cursor);
    const all = await testDb('identity').eventToken.findMany({
      where: { accountId: m.accountId },
      orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
      select: { id: true },
    });
    expect(seen).toEqual(all.map((t) => t.id));
    expect(pages).toBe(3); // 7 tokens: 3, 3, 1
    const keys = await m.client.get('/account/api-keys?limit=1');
    expect(keys.body).toEqual({ items: [expect.objectContaining({ id: m.keyId })], nextCursor: null });
    expect(await m.client.get('/account/api-keys?cursor=nope')).toMatchObject({ status: 400, body: { error: 'invalid_request' } });
    expect(await m.client.get('/account/event-tokens?limit=500')).toMatchObject({ status: 400, body: { error: 'invalid_request' } });
  });
});

describe('the event catalog past its cap', () => {
  /** Posts one event; its X-Event-Id once the playbook service has applied it. */
  async function send(m: Manager, event: string, email: string): Promise<string> {
    const res = await postEvent(gateway.url, m.token, { event, email });
    expect(res.status).toBe(200);
    const eventId = res.headers.get('x-event-id')!;
    await waitFor(async () => (await testDb('playbook').processedEvent.count({ where: { eventId } })) === 1, { what: `${event} applied` });
    return eventId;
  }

  it('when the catalog is full, then a new name is applied but not added, 20 new names at once add exactly the one room was left for, and the API says so', async () => {
    const m = await manager();
    const seeded = Array.from({ length: CATALOG_CAP - 2 }, (_, i) => `seeded_${String(i).padStart(4, '0')}`);
    await seedCatalog(m.accountId, seeded);
    const person = uniqueEmail('catalog');
    // A playbook started by a catalogued name, stopped by a name never sent (exits may name any).
    const pb = await m.client.post('/account/playbooks', { name: 'Full catalog', triggers: ['seeded_0000'], exits: ['left_after_full'] });
    expect(pb.status).toBe(201);
    await send(m, 'seeded_0000', person);
    await send(m, 'first_new', uniqueEmail('n')); // room for one: it is added
    await waitFor(async () => (await m.client.get('/account/events/catalog?limit=1')).body.names === CATALOG_CAP - 1, { what: 'first_new catalogued' });

    // 20 new names at once: exactly one is added (the last room), the others refused.
    const names = Array.from({ length: 20 }, (_, i) => `burst_${i}`);
    const sent = await atOnce(20, (i) => postEvent(gateway.url, m.token, { event: names[i], email: uniqueEmail('burst') }));
    expect(sent.map((r) => r.status)).toEqual(Array(20).fill(200));
    const ids = sent.map((r) => r.headers.get('x-event-id')!);
    await waitFor(async () => (await testDb('playbook').processedEvent.count({ where: { eventId: { in: ids } } })) === 20, { what: 'the burst applied' });
    const refusedAll = await waitFor(
      async () => {
        const row = await testDb('playbook').catalogRefusal.findUnique({ where: { accountId: m.accountId } });
        return row && Number(row.events) === 19 && row;
      },
      { what: '19 refused names' },
    );
    expect(names).toContain(refusedAll.lastName);

    const stop = await send(m, 'left_after_full', person); // refused by the catalog, applied all the same
    const receipt = await m.client.get(`/account/events/${stop}`);
    expect(receipt.body.stopped).toEqual([{ id: pb.body.id, name: 'Full catalog' }]);

    const page = await waitFor(
      async () => {
        const res = await m.client.get('/account/events/catalog?limit=200');
        return res.body.refused?.events === 20 && res;
      },
      { what: 'the exit name refused too' },
    );
    expect(page.body).toMatchObject({ names: CATALOG_CAP, maxNames: CATALOG_CAP, full: true, refused: { events: 20, lastName: 'left_after_full' } });
    const catalog = await testDb('playbook').eventName.findMany({ where: { accountId: m.accountId }, select: { name: true } });
    expect(catalog).toHaveLength(CATALOG_CAP);
    expect(catalog.filter((c) => names.includes(c.name))).toHaveLength(1);
    expect(catalog.some((c) => c.name === 'left_after_full')).toBe(false);

    // The pages, by name, hold every name once.
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const res: HttpResult = await m.client.get(`/account/events/catalog?limit=200${cursor ? `&cursor=${cursor}` : ''}`);
      expect(res.status).toBe(200);
      seen.push(...res.body.items.map((i: { name: string }) => i.name));
      cursor = res.body.nextCursor;
    } while (cursor);
    expect(seen).toHaveLength(CATALOG_CAP);
    expect(new Set(seen).size).toBe(CATALOG_CAP);
    expect(seen.find((n) => n === 'seeded_0000')).toBeDefined();
    expect(await m.client.get(`/account/events/catalog?cursor=${Buffer.from('x|y').toString('base64url')}`)).toMatchObject({
      status: 400,
      body: { error: 'invalid_request' },
    });

    // A refused name cannot become a trigger (409 naming the cap); a dry run says the catalog is full.
    const trigger = await m.client.post('/account/playbooks', { name: 'Refused trigger', triggers: ['left_after_full'] });
    expect(trigger).toMatchObject({ status: 409, body: { error: 'limit_reached', message: expect.stringContaining(`at most ${CATALOG_CAP} event names`) } });
    expect((await m.client.post('/account/events/dry-run', { event: 'another_new', email: person })).body.catalog).toBe('full');
    expect((await m.client.post('/account/events/dry-run', { event: 'seeded_0001', email: person })).body.catalog).toBe('known');
  });
});

/** How many one-second windows calls made from `started` until now can have fallen in. */
const windowsSince = (started: number) => Math.floor(Date.now() / 1000) - Math.floor(started / 1000) + 1;

describe('rate limits per account, shared by every API key of the account', () => {
  it('when several keys of one account call the management API at once, then together they get no more than the account limit', async () => {
    const limited = await startTestGateway({ ACCOUNT_RATE_LIMIT_PER_SECOND: '100', ACCOUNT_RATE_LIMIT_PER_ACCOUNT_PER_SECOND: '4' });
    stops.push(() => limited.stop());
    const m = await createManager();
    const keys = [m.key, ...(await Promise.all([1, 2].map(async () => (await createTestApiKey(m.accountId, ['account:manage'])).key)))];
    const started = Date.now();
    const answers = await atOnce(30, (i) => api(limited.url, keys[i % 3]).get('/account/event-tokens'));
    const ok = answers.filter((a) => a.status === 200).length;
    // Fixed one-second windows: 4 in each window the calls fell in (one or two, more on a slow machine).
    expect(ok).toBeGreaterThanOrEqual(4);
    expect(ok).toBeLessThanOrEqual(4 * windowsSince(started));
    const refused = answers.filter((a) => a.status === 429);
    expect(refused.length).toBe(30 - ok);
    for (const r of refused) {
      expect(r.body).toEqual({ error: 'rate_limited', message: expect.stringContaining('for this account (all its API keys together)') });
      expect([r.headers.get('ratelimit-limit'), r.headers.get('ratelimit-remaining'), r.headers.get('retry-after')]).toEqual(['4', '0', '1']);
    }
    // Another account is not affected.
    expect((await api(limited.url, (await createManager()).key).get('/account/event-tokens')).status).toBe(200);
  });

  it('when a bulk enrichment counts more lookups than the account may make in a second, then it is 429 whatever the key', async () => {
    const stack = await startLookupStack({ LOOKUPS_RATE_LIMIT_PER_SECOND: '100', LOOKUPS_RATE_LIMIT_PER_ACCOUNT_PER_SECOND: '3' });
    stops.push(() => stack.stop());
    const m = await createManager();
    const { key } = await createTestApiKey(m.accountId, ['enrichment:read', 'visitors:read']);
    const bulk = await request(`${stack.gateway.url}/visitors/enrichment/bulk`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ items: Array.from({ length: 5 }, (_, i) => ({ email: `bulk${i}.${randomUUID()}@example.com` })) }),
    });
    expect(bulk.status).toBe(429);
    expect(bulk.body.message).toContain('for this account');
    expect(bulk.headers.get('ratelimit-limit')).toBe('3');
    // Single lookups from two fresh keys, in a window of their own (the refused bulk counted in its
    // window): together at most the account's 3 per window.
    await new Promise((r) => setTimeout(r, 1020 - (Date.now() % 1000)));
    const keys = await Promise.all([1, 2].map(async () => (await createTestApiKey(m.accountId, ['visitors:read'])).key));
    const visitor = () => randomUUID().replace(/-/g, '').slice(0, 24);
    const started = Date.now();
    const answers = await atOnce(12, (i) =>
      request(`${stack.gateway.url}/visitors/${visitor()}/details`, { headers: { authorization: `Bearer ${keys[i % 2]}` } }),
    );
    const served = answers.filter((a) => a.status !== 429).length;
    expect(served).toBeGreaterThanOrEqual(3);
    expect(served).toBeLessThanOrEqual(3 * windowsSince(started));
  });
});
