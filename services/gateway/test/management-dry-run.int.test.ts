// POST /account/events/dry-run end to end: what an event would do for its person now, per opted-in
// playbook, from the consumer's own planner, and nothing written anywhere (Postgres, Kafka, Redis).
import { Redis } from 'ioredis';
import { TOPICS } from '@glimpse/messaging';
import { eventCatalog } from '@glimpse/playbook';
import { usageTotals } from '@glimpse/enrichment';
import { closeTestDb, postEvent, sendNamesOnce, startManagementStack, testDb, testSql, uniqueEmail, waitFor } from '../../../test/support/stack';
import { applicationColumns, applicationTables } from '../../../test/support/tables';
import { endOffsets, ofAccount, readTopic, type Offsets } from '../../../test/support/kafka-helpers';
import { redisUrl } from '../../../test/config';
import { rawCopiesOf } from '../../../test/support/raw-copies';
import { api, createManager, type Api, type Manager } from './management-helpers';

/** The usage tables the enrichment service's roll-up rewrites: compared as the account's totals, which a roll-up keeps. */
const ROLLED_UP = ['usage_ledger', 'usage_days'];

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

/**
 * Everything a dry run could write for its account: the account's rows in every table that has an
 * account_id (its usage as totals, the catalog as the API reads it, since a fold moves its rows),
 * every row of the tables that hold no account, the account's Redis keys, and the topics' end offsets
 * (messagesBetween reads the account's messages between two snapshots).
 * Only the account's own where there is one: the stack's background jobs change other accounts'
 * rows at any moment (the enrichment service rolls every account's usage ledger up into usage_days
 * every 5 s, and another test's ledger rows once moved during the dry run; the playbook service
 * purges old processed events, its outbox publishes other accounts' effects), and other accounts'
 * Redis keys expire.
 */
async function everything(accountId: string) {
  const db = testSql();
  // account_states follows the accounts topic: the stack's consumers apply account events to it at
  // their own pace, so it may grow during the dry run without the dry run writing.
  const tables = (await applicationTables(db)).filter((t) => !['event_names', 'event_name_deltas', 'account_states', ...ROLLED_UP].includes(t.table));
  expect(tables.length).toBeGreaterThan(15); // the services' schemas, all of them
  const ofAccounts = new Set((await applicationColumns(db)).filter((c) => c.column === 'account_id').map((c) => c.qualified));
  const counts: Record<string, number> = {};
  for (const { table, qualified } of tables) {
    const [row] = ofAccounts.has(qualified)
      ? await db.$queryRawUnsafe<{ n: bigint }[]>(`SELECT count(*) AS n FROM ${qualified} WHERE account_id::text = $1`, accountId)
      : await db.$queryRawUnsafe<{ n: bigint }[]>(`SELECT count(*) AS n FROM ${qualified}`);
    counts[table] = Number(row!.n);
  }
  const keys: string[] = [];
  let cursor = '0';
  do {
    const [next, batch] = await redis.scan(cursor, 'COUNT', 1000);
    cursor = next;
    // The management API's own rate-limit counters (glimpse:{<subject>}:rate:…) are the only keys a
    // request may touch; another account's keys (glimpse:{a:<account>}:…) are not this one's.
    keys.push(...batch.filter((k) => !/^glimpse:\{[^}]*\}:rate:/.test(k) && (!k.startsWith('glimpse:{a:') || k.startsWith(`glimpse:{a:${accountId}}`))));
  } while (cursor !== '0');
  return {
    counts,
    usage: await usageTotals(testDb('enrichment'), accountId),
    catalog: await eventCatalog(testDb('playbook'), accountId),
    offsets: { inbound: await endOffsets(TOPICS.eventsInbound), effects: await endOffsets(TOPICS.playbookEffects) },
    keys: keys.sort(),
    recent: (await rawCopiesOf(redis, accountId)).map((c) => c.eventId),
  };
}

type Snapshot = Awaited<ReturnType<typeof everything>>;

/** The account's messages on the events and effects topics between two snapshots (the effects outbox publishes what another test left). */
async function messagesBetween(before: Snapshot, after: Snapshot, accountId: string) {
  const read = async (topic: string, from: Offsets, to: Offsets) =>
    [...to].every(([partition, offset]) => from.get(partition) === offset)
      ? []
      : ofAccount(await readTopic(topic, { from, to }), accountId).map((m) => m.value);
  return {
    inbound: await read(TOPICS.eventsInbound, before.offsets.inbound, after.offsets.inbound),
    effects: await read(TOPICS.playbookEffects, before.offsets.effects, after.offsets.effects),
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

    const after = await everything(manager.accountId);
    expect({ ...after, offsets: undefined }).toEqual({ ...before, offsets: undefined });
    expect(await messagesBetween(before, after, manager.accountId)).toEqual({ inbound: [], effects: [] });
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
