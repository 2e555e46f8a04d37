// The identity outbox on the real database and broker: creating and deleting an account write
// their events in order, publishing puts them on the accounts topic keyed by the account and marks
// them, and a failed send leaves the events for the next round.
import { randomUUID } from 'node:crypto';
import { AppError } from '@glimpse/errors';
import { TOPICS, accountEventSchema, createBatchingProducer, type BatchingProducer } from '@glimpse/messaging';
import {
  AccountEventsPublishError,
  accountEventsPending,
  createAccount,
  createEventToken,
  deleteAccount,
  publishAccountEvents,
  type AccountEventProducer,
} from '@glimpse/auth';
import { closeTestDb, testDb, waitFor } from '../../../test/support/stack';
import { endOffsets, readTopic, testKafka } from '../../../test/support/kafka-helpers';

let producer: BatchingProducer;

beforeAll(async () => {
  producer = createBatchingProducer({ kafka: testKafka() });
  await producer.connect();
});

afterAll(async () => {
  await producer?.disconnect();
  await closeTestDb();
});

const eventsOf = (accountId: string) => testDb('identity').accountEvent.findMany({ where: { accountId }, orderBy: { seq: 'asc' } });

/** Publishes until the account has nothing pending (a gateway of another test may hold the publisher lock for a round). */
async function publishAll(accountId: string, p: AccountEventProducer = producer): Promise<void> {
  await waitFor(
    async () => {
      await publishAccountEvents(testDb('identity'), p, { limit: 500 });
      return (await accountEventsPending(testDb('identity'), accountId)) === 0;
    },
    { what: `the events of ${accountId} published` },
  );
}

describe('the account outbox', () => {
  it('when an account is created and deleted, then account.created and account.deleted are written in that order with the changes, unpublished', async () => {
    const { id } = await createAccount(testDb('identity'), 'Outbox test');
    const created = await eventsOf(id);
    expect(created).toEqual([expect.objectContaining({ accountId: id, type: 'account.created', publishedAt: null })]);
    const account = await testDb('identity').account.findUniqueOrThrow({ where: { id } });
    expect(created[0]!.at).toEqual(account.createdAt);

    const token = await createEventToken(testDb('identity'), id);
    const { deletedAt } = await deleteAccount(testDb('identity'), id);
    expect(await testDb('identity').account.findUnique({ where: { id } })).toBeNull();
    expect(await testDb('identity').eventToken.findUnique({ where: { id: token.id } })).toBeNull();
    const both = await eventsOf(id);
    expect(both.map((e) => e.type)).toEqual(['account.created', 'account.deleted']);
    expect(both[1]!.seq).toBeGreaterThan(both[0]!.seq);
    expect(both[1]!.at).toEqual(deletedAt);
  });

  it('when an unknown or malformed account is deleted, then it is not_found and no event is written', async () => {
    const unknown = randomUUID();
    await expect(deleteAccount(testDb('identity'), unknown)).rejects.toEqual(expect.objectContaining({ code: 'not_found' }));
    await expect(deleteAccount(testDb('identity'), 'not-an-id')).rejects.toBeInstanceOf(AppError);
    expect(await eventsOf(unknown)).toEqual([]);
  });

  it('when an account is deleted twice, then the second is not_found and only one account.deleted exists', async () => {
    const { id } = await createAccount(testDb('identity'), 'Twice');
    await deleteAccount(testDb('identity'), id);
    await expect(deleteAccount(testDb('identity'), id.toUpperCase())).rejects.toEqual(expect.objectContaining({ code: 'not_found' }));
    expect((await eventsOf(id)).map((e) => e.type)).toEqual(['account.created', 'account.deleted']);
  });

  it('when the events are published, then the accounts topic has both in order under the account key, as the schema says, and the rows are marked', async () => {
    const from = await endOffsets(TOPICS.accounts);
    const { id } = await createAccount(testDb('identity'), 'Published');
    await deleteAccount(testDb('identity'), id);
    await publishAll(id);

    const rows = await eventsOf(id);
    expect(rows.every((r) => r.publishedAt !== null)).toBe(true);
    const messages = await readTopic(TOPICS.accounts, { from, until: (read) => read.filter((m) => m.key === id).length >= 2 });
    const mine = messages.filter((m) => m.key === id);
    expect(mine.map((m) => accountEventSchema.parse(m.json))).toEqual([
      { type: 'account.created', accountId: id, at: rows[0]!.at.toISOString() },
      { type: 'account.deleted', accountId: id, at: rows[1]!.at.toISOString() },
    ]);
    expect(new Set(mine.map((m) => m.partition)).size).toBe(1);
    expect(Object.keys(mine[0]!.json).sort()).toEqual(['accountId', 'at', 'type']); // no name, nothing else
  });

  it('when a send fails, then the events sent before it are marked and the failed one and all after it stay unpublished for the next round', async () => {
    // Another test's gateway may publish the rows first; then the round is tried with new accounts.
    for (let attempt = 0; attempt < 5; attempt++) {
      const before = await createAccount(testDb('identity'), 'Before the failure');
      const failed = await createAccount(testDb('identity'), 'The failure');
      const after = await createAccount(testDb('identity'), 'After the failure');
      const sent: string[] = [];
      const failing: AccountEventProducer = {
        async send(topic, message) {
          if (message.key === failed.id) throw new Error('broker gone');
          sent.push(message.key);
          await producer.send(topic, message);
        },
      };
      const outcome = await waitFor(
        async () => {
          try {
            await publishAccountEvents(testDb('identity'), failing, { limit: 10_000 });
          } catch (err) {
            return { err };
          }
          // Published without reaching the failure: another publisher took these rows (or held the lock).
          return (await accountEventsPending(testDb('identity'), failed.id)) === 0 ? { err: undefined } : false;
        },
        { what: 'a round over the failing event' },
      );
      if (!outcome.err) continue;

      expect(outcome.err).toBeInstanceOf(AccountEventsPublishError);
      expect((outcome.err as AccountEventsPublishError).published).toBeGreaterThan(0);
      expect(sent).toContain(before.id);
      expect(await accountEventsPending(testDb('identity'), before.id)).toBe(0);
      expect(await accountEventsPending(testDb('identity'), failed.id)).toBe(1);
      expect(await accountEventsPending(testDb('identity'), after.id)).toBe(1); // sent, but after the failure: sent again next round
      await publishAll(after.id);
      expect(await accountEventsPending(testDb('identity'), failed.id)).toBe(0);
      return;
    }
    throw new Error('every attempt was published by another publisher first');
  });
});
