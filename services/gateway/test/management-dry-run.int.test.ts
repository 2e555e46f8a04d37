// POST /account/events/dry-run end to end: what an event would do for its person now, per opted-in
// playbook, from the consumer's own planner, and nothing written anywhere (Postgres, Kafka, Redis).
import { Redis } from 'ioredis';
import { TOPICS } from '@glimpse/messaging';
import { eventCatalog } from '@glimpse/playbook';
import { closeTestDb, postEvent, sendNamesOnce, startManagementStack, testDb, testSql, uniqueEmail, waitFor } from '../../../test/support/stack';
import { applicationTables } from '../../../test/support/tables';
import { endOffsets } from '../../../test/support/kafka-helpers';
import { redisUrl } from '../../../test/config';
import { rawCopiesOf } from '../../../test/support/raw-copies';
import { api, createManager, type Api, type Manager } from './management-helpers';

let stack: Awaited<ReturnType<typeof startManagementStack>>;
let redis: Redis;
beforeAll(async () => {
  stack = await startManagementStack();
  redis = new Redis(redisUrl());
});
afterAll(async () => {
  await stack?.stop();
  redis?.disconnect();
  await closeTestDb();
});

/** Posts events and waits until they are applied and their effects published. */
async function send(manager: Manager, email: string, ...events: string[]) {
  const db = testDb('playbook');
  const before = await db.processedEvent.count({ where: { accountId: manager.accountId } });
  for (const event of events) expect((await postEvent(stack.gateway.url, manager.token, { event, email })).status).toBe(200);
  await waitFor(async () => (await db.processedEvent.count({ where: { accountId: manager.accountId } })) >= before + events.length, { what: 'events applied' });
  await waitFor(async () => (await db.playbookEffect.count({ where: { accountId: manager.accountId, publishedAt: null } })) === 0, {
    what: 'effects published',
  });
}

/** Everything a dry run could write: row counts of every table (the catalog as the API reads it, since a fold moves its rows), Kafka end offsets, Redis keys. */
async function everything(accountId: string) {
  const db = testSql();
  // account_states follows the accounts topic: the stack's consumers apply other tests' account
  // events to it at their own pace, so it may grow during the dry run without the dry run writing.
  const tables = (await applicationTables(db)).filter((t) => !['event_names', 'event_name_deltas', 'account_states'].includes(t.table));
  expect(tables.length).toBeGreaterThan(15); // the services' schemas, all of them
  const counts: Record<string, number> = {};
  for (const { table, qualified } of tables) {
    const [row] = await db.$queryRawUnsafe<{ n: bigint }[]>(`SELECT count(*) AS n FROM ${qualified}`);
    counts[table] = Number(row!.n);
  }
  const keys: string[] = [];
  let cursor = '0';
  do {
    const [next, batch] = await redis.scan(cursor, 'COUNT', 1000);
    cursor = next;
    // The management API's own rate-limit counters (glimpse:{<subject>}:rate:…) are the only keys a request may touch.
    keys.push(...batch.filter((k) => !/^glimpse:\{[^}]*\}:rate:/.test(k)));
  } while (cursor !== '0');
  return {
    counts,
    catalog: await eventCatalog(testDb('playbook'), accountId),
    inbound: Object.fromEntries(await endOffsets(TOPICS.eventsInbound)),
    effects: Object.fromEntries(await endOffsets(TOPICS.playbookEffects)),
    keys: keys.sort(),
    recent: (await rawCopiesOf(redis, accountId)).map((c) => c.eventId),
  };
}

async function setUp() {
  const manager = await createManager();
  const client = api(stack.gateway.url, manager.key);
  await sendNamesOnce(stack.gateway.url, manager, ['signed_up']);
  const create = async (body: object) => (await client.post('/account/playbooks', body)).body.id as string;
  const ids = {
    welcome: await create({ name: 'A welcome', triggers: ['signed_up'], exits: ['purchase'] }),
    once: await create({ name: 'B once', triggers: ['signed_up'], reenrollment: 'once' }),
    restart: await create({ name: 'C restart', triggers: ['signed_up'], reenrollment: 'restart' }),
    form: await create({ name: 'D form', triggers: ['signed_up'], exits: ['signed_up'] }),
  };
  return { manager, client, ids };
}

describe('management API: dry run', () => {
  it('when a person is active in every playbook, then the dry run answers per playbook what the event would do and why, and nothing changes anywhere', async () => {
    const { manager, client, ids } = await setUp();
    const email = uniqueEmail('dry');
    await send(manager, email, 'signed_up');
    const before = await everything(manager.accountId);

    const res = await client.post('/account/events/dry-run', { event: 'signed_up', email: `  ${email.toUpperCase()} `, properties: { plan: 'pro' } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      event: 'signed_up',
      email,
      catalog: 'known',
      playbooks: [
        { id: ids.welcome, name: 'A welcome', outcome: 'none', reason: 'already_active' },
        { id: ids.once, name: 'B once', outcome: 'none', reason: 'already_active' },
        { id: ids.restart, name: 'C restart', outcome: 'restart', reason: 'reenrollment_policy' },
        { id: ids.form, name: 'D form', outcome: 'restart', reason: 'exit_and_trigger' },
      ],
    });
    const exit = await client.post('/account/events/dry-run', { event: 'purchase', email });
    expect(exit.body).toEqual({
      event: 'purchase',
      email,
      catalog: 'new',
      playbooks: [{ id: ids.welcome, name: 'A welcome', outcome: 'stop', reason: 'exit' }],
    });

    expect(await everything(manager.accountId)).toEqual(before);
    // And the real event does what the dry run said.
    await send(manager, email, 'purchase');
    expect((await client.get(`/account/playbooks/${ids.welcome}/enrollments?status=active`)).body.items).toEqual([]);
  });

  it('when the person is new, or was in a once playbook before, then start and reenrollment_policy; an exit for someone not in it is not_active', async () => {
    const { manager, client, ids } = await setUp();
    const fresh = await client.post('/account/events/dry-run', { event: 'signed_up', email: uniqueEmail('new') });
    expect(fresh.body.playbooks.map((p: { outcome: string; reason: string }) => [p.outcome, p.reason])).toEqual([
      ['start', 'trigger'],
      ['start', 'trigger'],
      ['start', 'trigger'],
      ['start', 'trigger'],
    ]);
    const email = uniqueEmail('returning');
    await send(manager, email, 'signed_up');
    await testDb('playbook').enrollment.updateMany({
      where: { playbookId: ids.once, email },
      data: { status: 'stopped', stoppedAt: new Date(), stoppedBy: 'manual' },
    });
    const returning = await client.post('/account/events/dry-run', { event: 'signed_up', email });
    expect(returning.body.playbooks.find((p: { id: string }) => p.id === ids.once)).toMatchObject({ outcome: 'none', reason: 'reenrollment_policy' });
    const notIn = await client.post('/account/events/dry-run', { event: 'purchase', email: uniqueEmail('never') });
    expect(notIn.body.playbooks).toEqual([{ id: ids.welcome, name: 'A welcome', outcome: 'none', reason: 'not_active' }]);
    const nothing = await client.post('/account/events/dry-run', { event: 'page_viewed', email });
    expect(nothing.body).toEqual({ event: 'page_viewed', email, catalog: 'new', playbooks: [] });
  });

  it.each([
    [{ event: 'has space', email: 'a@example.com' }, 'event must be 1 to 64 characters'],
    [{ event: 'signed_up', email: 'not-an-email' }, 'email must be a valid email address'],
    [{ event: 'signed_up' }, 'email is required'],
    [{ event: 'signed_up', email: 'a@example.com', properties: { nested: { a: 1 } } }, 'property values must be strings, numbers or booleans'],
    [{ event: 'signed_up', email: 'a@example.com', extra: 1 }, 'unknown field(s): extra'],
  ])('when the dry run body is %p, then it is 400 as POST /events would say', async (body, message) => {
    const manager = await createManager();
    const client: Api = api(stack.gateway.url, manager.key);
    const res = await client.post('/account/events/dry-run', body);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'invalid_request', message: expect.stringContaining(message) });
    const asEvent = await postEvent(stack.gateway.url, manager.token, body);
    expect(asEvent.body).toEqual(res.body);
  });

  it('when the key lacks account:manage or an event token is used, then it is 403 or 401', async () => {
    const manager = await createManager(['visitors:read']);
    expect((await api(stack.gateway.url, manager.key).post('/account/events/dry-run', { event: 'x', email: 'a@example.com' })).status).toBe(403);
    expect((await api(stack.gateway.url, manager.token).post('/account/events/dry-run', { event: 'x', email: 'a@example.com' })).status).toBe(401);
  });
});
