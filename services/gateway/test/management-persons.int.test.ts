// Suppression and erasure end to end through the management API: gateway → playbook service and
// Redis; events posted to the gateway and applied by the real consumer.
import { Redis } from 'ioredis';
import { ERASED_EMAIL_PATTERN } from '@glimpse/messaging';
import { eventCatalog } from '@glimpse/playbook';
import { closeTestDb, postEvent, sendNamesOnce, startManagementStack, testDb, uniqueEmail, waitFor } from '../../../test/support/stack';
import { applicationColumns } from '../../../test/support/tables';
import { redisUrl } from '../../../test/config';
import { rawKeysOf } from '../../../test/support/raw-copies';
import { ISO_TIME, api, createManager, type Api, type Manager } from './management-helpers';

let stack: Awaited<ReturnType<typeof startManagementStack>>;
let redis: Redis;
beforeAll(async () => {
  stack = await startManagementStack({}, { webhooks: true });
  redis = new Redis(redisUrl());
});
afterAll(async () => {
  await stack?.stop();
  redis?.disconnect();
  await closeTestDb();
});

async function send(manager: Manager, email: string, ...events: string[]) {
  const db = testDb();
  const before = await db.processedEvent.count({ where: { accountId: manager.accountId } });
  for (const event of events) expect((await postEvent(stack.gateway.url, manager.token, { event, email, properties: { note: `about ${email}` } })).status).toBe(200);
  await waitFor(async () => (await db.processedEvent.count({ where: { accountId: manager.accountId } })) >= before + events.length, { what: 'events applied' });
}

async function setUp() {
  const manager = await createManager();
  const client = api(stack.gateway.url, manager.key);
  await sendNamesOnce(stack.gateway.url, manager, ['signed_up', 'demo_booked']);
  const welcome = (await client.post('/account/playbooks', { name: 'Welcome', triggers: ['signed_up'], exits: ['purchase'] })).body.id as string;
  const demo = (await client.post('/account/playbooks', { name: 'Demo', triggers: ['demo_booked'] })).body.id as string;
  return { manager, client, welcome, demo };
}

const enrollmentsOf = async (client: Api, playbookId: string, email: string) =>
  ((await client.get(`/account/playbooks/${playbookId}/enrollments`)).body.items as { email: string; status: string; stoppedBy: string | null }[])
    .filter((e) => e.email === email)
    .map((e) => [e.status, e.stoppedBy]);

const catalogCount = async (accountId: string, name: string) => (await eventCatalog(testDb(), accountId)).find((e) => e.name === name)?.count ?? 0;

describe('management API: suppressions', () => {
  it('when a person is suppressed, then their active enrollments stop (suppressed), their events are counted but start nothing, until the suppression is lifted', async () => {
    const { manager, client, welcome, demo } = await setUp();
    const email = uniqueEmail('supp');
    await send(manager, email, 'signed_up');
    expect(await enrollmentsOf(client, welcome, email)).toEqual([['active', null]]);

    const res = await client.post('/account/suppressions', { email: ` ${email.toUpperCase()} ` });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ id: expect.any(String), email, createdAt: expect.stringMatching(ISO_TIME), stoppedEnrollments: 1 });
    expect(await enrollmentsOf(client, welcome, email)).toEqual([['stopped', 'suppressed']]);
    const again = await client.post('/account/suppressions', { email });
    expect(again).toMatchObject({ status: 200, body: { id: res.body.id, stoppedEnrollments: 0 } });
    expect((await client.get('/account/suppressions')).body).toEqual({ items: [{ id: res.body.id, email, createdAt: res.body.createdAt }], nextCursor: null });

    const before = await catalogCount(manager.accountId, 'demo_booked');
    await send(manager, email, 'signed_up', 'demo_booked');
    await waitFor(async () => (await catalogCount(manager.accountId, 'demo_booked')) === before + 1, { what: 'the catalog counting the event' });
    expect(await enrollmentsOf(client, welcome, email)).toEqual([['stopped', 'suppressed']]);
    expect(await enrollmentsOf(client, demo, email)).toEqual([]);
    const dry = await client.post('/account/events/dry-run', { event: 'demo_booked', email });
    expect(dry.body.playbooks).toEqual([{ id: demo, name: 'Demo', outcome: 'none', reason: 'suppressed' }]);

    expect((await client.del(`/account/suppressions/${encodeURIComponent(email)}`)).status).toBe(204);
    expect((await client.del(`/account/suppressions/${encodeURIComponent(email)}`)).status).toBe(404);
    expect((await client.get('/account/suppressions')).body.items).toEqual([]);
    await send(manager, email, 'demo_booked');
    expect(await enrollmentsOf(client, demo, email)).toEqual([['active', null]]);
  });

  it('when suppressions are listed with a limit, then the cursor walks them newest first; other accounts see none of them', async () => {
    const { client } = await setUp();
    const emails = [uniqueEmail('s1'), uniqueEmail('s2'), uniqueEmail('s3')];
    for (const email of emails) expect((await client.post('/account/suppressions', { email })).status).toBe(201);
    const first = await client.get('/account/suppressions?limit=2');
    expect(first.body.items.map((s: { email: string }) => s.email)).toEqual([emails[2], emails[1]]);
    const second = await client.get(`/account/suppressions?limit=2&cursor=${first.body.nextCursor}`);
    expect(second.body).toEqual({ items: [expect.objectContaining({ email: emails[0] })], nextCursor: null });
    const other = api(stack.gateway.url, (await createManager()).key);
    expect((await other.get('/account/suppressions')).body.items).toEqual([]);
    expect((await other.del(`/account/suppressions/${encodeURIComponent(emails[0]!)}`)).status).toBe(404);
  });

  it.each([
    [{ email: 'nope' }, 'email must be a valid email address'],
    [{}, 'email is required'],
    [{ email: 'a@example.com', note: 1 }, 'unknown field(s): note'],
  ])('when a suppression body is %p, then it is 400 and nothing is stored', async (body, message) => {
    const manager = await createManager();
    const client = api(stack.gateway.url, manager.key);
    const res = await client.post('/account/suppressions', body);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'invalid_request', message: expect.stringContaining(message) });
    expect(await testDb().suppression.count({ where: { accountId: manager.accountId } })).toBe(0);
  });
});

/** Every text, varchar and json column of every table in which `needle` appears, as table.column. */
async function postgresHolding(needle: string): Promise<string[]> {
  const db = testDb();
  const columns = await applicationColumns(db, { textual: true });
  expect(columns.length).toBeGreaterThan(20); // the scan does see the services' schemas
  const found: string[] = [];
  for (const { table, column, qualified } of columns) {
    const [row] = await db.$queryRawUnsafe<{ n: bigint }[]>(`SELECT count(*) AS n FROM ${qualified} WHERE "${column}"::text ILIKE '%' || $1 || '%'`, needle);
    if (Number(row!.n) > 0) found.push(`${table}.${column}`);
  }
  return found;
}

/** Every Redis key whose name or value holds `needle`. */
async function redisHolding(needle: string): Promise<string[]> {
  const found: string[] = [];
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'COUNT', 1000);
    cursor = next;
    for (const key of keys) {
      const type = await redis.type(key);
      const values =
        type === 'string' ? [(await redis.get(key)) ?? '']
        : type === 'zset' ? await redis.zrange(key, 0, -1)
        : type === 'hash' ? Object.entries(await redis.hgetall(key)).flat()
        : type === 'list' ? await redis.lrange(key, 0, -1)
        : type === 'set' ? await redis.smembers(key)
        // Raw copies: an entry's fields and values.
        : type === 'stream' ? (await redis.xrange(key, '-', '+')).flatMap(([, fields]) => fields)
        : [];
      if ([key, ...values].some((v) => v.toLowerCase().includes(needle))) found.push(key);
    }
  } while (cursor !== '0');
  return found;
}

describe('management API: erasure', () => {
  it('when a person is erased, then their enrollments stop, and the email is in no column of Postgres and no key or value of Redis, while the counts stay', async () => {
    const { manager, client, welcome, demo } = await setUp();
    // A webhook endpoint, so the person's effects are also recorded as deliveries by the webhooks
    // service (a closed loopback port: every attempt fails and stays recorded).
    const endpoint = await client.post('/account/webhooks', { url: 'http://127.0.0.1:9/hooks', events: ['enrollment.started', 'enrollment.stopped'] });
    expect(endpoint.status).toBe(201);
    const email = uniqueEmail('erase');
    const bystander = uniqueEmail('stays');
    await send(manager, email, 'signed_up', 'purchase', 'signed_up', 'demo_booked');
    await send(manager, bystander, 'signed_up');
    expect((await client.post('/account/suppressions', { email })).status).toBe(201);
    await waitFor(async () => (await testDb().playbookEffect.count({ where: { accountId: manager.accountId, publishedAt: null } })) === 0, { what: 'effects published' });
    const effectsOf = await testDb().playbookEffect.count({ where: { accountId: manager.accountId } });
    await waitFor(async () => (await testDb().webhookDelivery.count({ where: { endpointId: endpoint.body.id } })) === effectsOf, { what: 'every effect recorded as a delivery' });
    expect(await postgresHolding(email)).toEqual(expect.arrayContaining(['enrollments.email', 'playbook_effects.email', 'suppressions.email', 'webhook_deliveries.payload']));
    expect((await redisHolding(email)).length).toBeGreaterThan(0);
    const counts = async () => ({
      enrollments: await testDb().enrollment.count({ where: { accountId: manager.accountId } }),
      effects: await testDb().playbookEffect.count({ where: { accountId: manager.accountId } }),
    });
    const before = await counts();

    const res = await client.del(`/account/persons/${encodeURIComponent(email.toUpperCase())}`);
    expect(res.status).toBe(200);
    // Suppressing stopped the two active enrollments already, each with a stop effect (cause
    // "suppressed"): erasure stops none, hashes the three enrollments and the six effects (start,
    // stop, start; start; the two suppression stops).
    expect(res.body).toEqual({ stoppedEnrollments: 0, hashedEnrollments: 3, hashedEffects: 6, deletedSuppressions: 1, deletedRawEvents: 4, hashedDeliveries: 6, deletedVisitors: 0, deletedVisitorLinks: 0, deletedImportedVisitors: 0, hashedImportedVisitors: 0 });

    expect(await postgresHolding(email)).toEqual([]);
    expect(await redisHolding(email)).toEqual([]);
    // Nor in an entry only marked deleted: each of the account's streams holds just what it lists.
    for (const key of await rawKeysOf(redis, manager.accountId)) {
      if (!key.includes(':raw:')) continue;
      const info = (await redis.call('XINFO', 'STREAM', key)) as unknown[];
      const field = (name: string) => Number(info[info.indexOf(name) + 1]);
      expect({ key, added: field('entries-added') }).toEqual({ key, added: field('length') });
    }
    expect(await counts()).toEqual(before);
    expect((await client.get(`/account/playbooks/${welcome}/enrollments`)).body.items.map((e: { email: string }) => e.email)).toEqual(
      expect.arrayContaining([bystander, expect.stringMatching(ERASED_EMAIL_PATTERN)]),
    );
    // The bystander's data is untouched.
    expect(await postgresHolding(bystander)).toEqual(expect.arrayContaining(['enrollments.email', 'playbook_effects.email']));
    expect((await client.get('/account/events/recent')).body.items.map((e: { email: string }) => e.email)).toContain(bystander);
    // Erasing again finds nothing; the person's later events are a new person.
    expect((await client.del(`/account/persons/${encodeURIComponent(email)}`)).body).toEqual({ stoppedEnrollments: 0, hashedEnrollments: 0, hashedEffects: 0, deletedSuppressions: 0, deletedRawEvents: 0, hashedDeliveries: 0, deletedVisitors: 0, deletedVisitorLinks: 0, deletedImportedVisitors: 0, hashedImportedVisitors: 0 });
    expect(await enrollmentsOf(client, demo, email)).toEqual([]);
  });

  it('when a person with active enrollments is erased, then they stop with the reason erased', async () => {
    const { manager, client } = await setUp();
    const email = uniqueEmail('active');
    await send(manager, email, 'signed_up', 'demo_booked');
    const res = await client.del(`/account/persons/${encodeURIComponent(email)}`);
    expect(res.body).toMatchObject({ stoppedEnrollments: 2, hashedEnrollments: 2, deletedRawEvents: 2 });
    const rows = await testDb().enrollment.findMany({ where: { accountId: manager.accountId, email: { startsWith: 'erased:' } } });
    expect(rows.map((r) => [r.status, r.stoppedBy])).toEqual([
      ['stopped', 'erased'],
      ['stopped', 'erased'],
    ]);
    expect((await client.del('/account/persons/not-an-email')).status).toBe(400);
  });
});
