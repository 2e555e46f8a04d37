// An account's deletion end to end on the real broker and database: the identity outbox publishes
// account.deleted on the accounts topic, the playbook service removes every row of the account from
// its schema, and an event of the account that arrives afterwards is dropped.
import { randomUUID } from 'node:crypto';
import { accountEventsPending, deleteAccount, publishAccountEvents } from '@glimpse/auth';
import type { RunningGateway } from '@glimpse/gateway';
import { TOPICS, createAccountEventsConsumer, createBatchingProducer, personKey, type BatchingProducer, type InboundEvent } from '@glimpse/messaging';
import { createPlaybook, suppressPerson, type RunningPlaybookService } from '@glimpse/playbook';
import { Registry } from 'prom-client';
import { createLogger } from '@glimpse/logging';
import { applyAccountEvent } from '../src/data/account-states';
import {
  closeTestDb,
  createTestAccount,
  postEvent,
  request,
  sendNamesOnce,
  startTestGateway,
  startTestPlaybookService,
  testDb,
  uniqueEmail,
  waitFor,
} from '../../../test/support/stack';
import { produceRaw, testKafka } from '../../../test/support/kafka-helpers';

// Every table of the playbook schema that holds an account's rows.
const TABLES = [
  'playbooks',
  'playbook_triggers',
  'playbook_exits',
  'enrollments',
  'event_names',
  'event_name_deltas',
  'suppressions',
  'processed_events',
  'playbook_effects',
  'event_receipts',
  'erasures',
] as const;

async function rowsOf(accountId: string): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const table of TABLES) {
    const [row] = await testDb('playbook').$queryRawUnsafe<{ n: bigint }[]>(`SELECT count(*) AS n FROM ${table} WHERE account_id = $1::uuid`, accountId);
    out[table] = Number(row!.n);
  }
  return out;
}

const stateOf = (accountId: string) => testDb('playbook').accountState.findUnique({ where: { accountId } });

const inboundEvent = (accountId: string, email: string, event: string): InboundEvent => ({
  eventId: randomUUID(),
  accountId,
  event,
  email,
  properties: {},
  receivedAt: new Date().toISOString(),
});

let gateway: RunningGateway;
let playbook: RunningPlaybookService;
let producer: BatchingProducer;

beforeAll(async () => {
  producer = createBatchingProducer({ kafka: testKafka() });
  await producer.connect();
  [gateway, playbook] = await Promise.all([startTestGateway(), startTestPlaybookService()]);
});

afterAll(async () => {
  await gateway?.stop();
  await playbook?.stop();
  await producer?.disconnect();
  await closeTestDb();
});

/** Publishes until the account's events are out (the test gateway's publisher may hold the lock for a round). */
async function published(accountId: string): Promise<void> {
  await waitFor(
    async () => {
      await publishAccountEvents(testDb('identity'), producer);
      return (await accountEventsPending(testDb('identity'), accountId)) === 0;
    },
    { what: `the account events of ${accountId} published` },
  );
}

describe('an account deleted in the identity part', () => {
  it('when its account.deleted is published, then the playbook service removes all its rows, keeps the other account, and drops its later events', async () => {
    // The accounts consumer joins its group in the background: ready once it runs.
    await waitFor(async () => (await request(`${playbook.url}/readyz`)).status === 200, { what: 'the playbook service ready' });
    expect(await request(`${playbook.url}/readyz`)).toMatchObject({ status: 200, body: { checks: { accounts: 'ok' } } });
    const account = await createTestAccount('to be deleted');
    const other = await createTestAccount('stays');
    await published(account.accountId);
    await waitFor(async () => (await stateOf(account.accountId))?.createdAt, { what: 'account.created applied' });

    // Playbook data of both accounts: a playbook with an enrollment (and its effect and receipt), a suppression, the catalog.
    for (const a of [account, other]) {
      await sendNamesOnce(gateway.url, a, ['demo_booked']);
      await createPlaybook(testDb('playbook'), { accountId: a.accountId, name: 'Demo follow-up', triggers: ['demo_booked'], exits: ['purchase'] });
      expect((await postEvent(gateway.url, a.token, { event: 'demo_booked', email: uniqueEmail('enrolled') })).status).toBe(200);
      await suppressPerson(testDb('playbook'), a.accountId, uniqueEmail('suppressed'));
    }
    const before = await waitFor(
      async () => {
        const rows = await rowsOf(account.accountId);
        return rows.enrollments === 1 && rows.playbook_effects === 1 && rows.event_receipts === 1 && rows.event_names === 1 ? rows : false;
      },
      { what: 'the enrollment, its effect, receipt and the catalog' },
    );
    expect(before).toMatchObject({ playbooks: 1, playbook_triggers: 1, playbook_exits: 1, suppressions: 1 });
    expect(before.processed_events).toBeGreaterThanOrEqual(2);
    const otherBefore = await waitFor(async () => ((await rowsOf(other.accountId)).enrollments === 1 ? rowsOf(other.accountId) : false), {
      what: "the other account's enrollment",
    });

    const { deletedAt } = await deleteAccount(testDb('identity'), account.accountId);
    await published(account.accountId);
    await waitFor(async () => (await stateOf(account.accountId))?.deletedAt, { what: 'account.deleted applied' });

    expect(await rowsOf(account.accountId)).toEqual(Object.fromEntries(TABLES.map((t) => [t, 0])));
    expect((await stateOf(account.accountId))?.deletedAt).toEqual(deletedAt);
    expect(await rowsOf(other.accountId)).toEqual(otherBefore);

    // An event of the deleted account (straight onto the topic: its token is gone with it), then a
    // sentinel of the other account on the same partition: once the sentinel is applied, the event
    // before it has been handled.
    const email = uniqueEmail('after');
    const late = inboundEvent(account.accountId, email, 'demo_booked');
    const sentinel = inboundEvent(other.accountId, uniqueEmail('sentinel'), 'demo_booked');
    await produceRaw(TOPICS.eventsInbound, [
      { key: personKey(account.accountId, email), value: JSON.stringify(late), partition: 0 },
      { key: personKey(other.accountId, sentinel.email), value: JSON.stringify(sentinel), partition: 0 },
    ]);
    await waitFor(async () => testDb('playbook').processedEvent.findUnique({ where: { eventId: sentinel.eventId } }), { what: 'the sentinel applied' });
    expect(await testDb('playbook').processedEvent.findUnique({ where: { eventId: late.eventId } })).toBeNull();
    await waitFor(async () => (await rowsOf(account.accountId)).event_name_deltas === 0, { what: 'the catalog folded' });
    expect(await rowsOf(account.accountId)).toEqual(Object.fromEntries(TABLES.map((t) => [t, 0])));
  });

  it('when account events come again or out of order, then applying them changes nothing more, and a deleted account stays deleted', async () => {
    const id = randomUUID(); // no identity account: nothing else publishes events of it meanwhile
    const at = new Date().toISOString();
    const deleted = { type: 'account.deleted' as const, accountId: id, at };
    await applyAccountEvent(testDb('playbook'), deleted);
    await suppressPerson(testDb('playbook'), id, uniqueEmail('late-suppression'));
    const again = await applyAccountEvent(testDb('playbook'), { ...deleted, at: new Date(Date.now() + 1000).toISOString() });
    expect(again.removed?.suppressions).toBe(1);
    await applyAccountEvent(testDb('playbook'), { type: 'account.created', accountId: id, at });
    const state = await stateOf(id);
    expect(state?.deletedAt?.toISOString()).toBe(at); // the first deletion's time stays
    expect(state?.createdAt?.toISOString()).toBe(at);
    expect(await rowsOf(id)).toEqual(Object.fromEntries(TABLES.map((t) => [t, 0])));
  });

  it('when a consumer group is new to the accounts topic, then it reads from the beginning and learns of a deletion published before it existed', async () => {
    const account = await createTestAccount('deleted before the group');
    await deleteAccount(testDb('identity'), account.accountId);
    await published(account.accountId);

    const seen: string[] = [];
    // The playbook service's consumer: the shared accounts consumer with the service's apply.
    const consumer = createAccountEventsConsumer({
      kafka: testKafka(),
      groupId: `glimpse-playbook-test-accounts-${randomUUID()}`,
      logger: createLogger({ service: 'playbook', level: 'silent' }),
      registry: new Registry(),
      onDeleted: async (id, event) => {
        await applyAccountEvent(testDb('playbook'), event);
        seen.push(id);
        return 0;
      },
    });
    consumer.start();
    try {
      await waitFor(async () => seen.includes(account.accountId), { what: 'the deletion read from the beginning', timeoutMs: 60_000 });
      expect(() => consumer.check()).not.toThrow();
      expect((await stateOf(account.accountId))?.deletedAt).not.toBeNull();
    } finally {
      await consumer.stop();
    }
    expect(() => consumer.check()).toThrow('not running');
  });
});
