// The outbox publisher's rules on an in-memory outbox: order, the lock held by another publisher,
// and a failed send, which only the Postgres test reached before.
import { TOPICS } from '@glimpse/messaging';
import { AccountEventsPublishError, publishAccountEvents, type AccountEventOutbox, type OutboxEvent } from './account-events';

function memoryOutbox(events: OutboxEvent[], { held = false } = {}) {
  const published = new Set<bigint>();
  const asked: { limit?: number; timeoutMs?: number } = {};
  const outbox: AccountEventOutbox = {
    async whileLocked(work, timeoutMs) {
      asked.timeoutMs = timeoutMs;
      if (held) return undefined;
      return work({
        unpublished: async (limit) => ((asked.limit = limit), events.filter((e) => !published.has(e.seq)).slice(0, limit)),
        markPublished: async (seqs) => seqs.forEach((s) => published.add(s)),
      });
    },
  };
  return { outbox, published, asked };
}

const event = (seq: number, accountId = `acc-${seq}`): OutboxEvent => ({
  seq: BigInt(seq),
  accountId,
  type: 'account.created',
  at: new Date(Date.UTC(2024, 0, 1, 0, 0, seq)),
});

function recordingProducer(failOn: (key: string) => boolean = () => false) {
  const sent: { topic: string; key: string; value: string }[] = [];
  return {
    sent,
    async send(topic: string, message: { key: string; value: string }) {
      if (failOn(message.key)) throw new Error(`broker refused ${message.key}`);
      sent.push({ topic, ...message });
    },
  };
}

describe('publishAccountEvents', () => {
  it('when events wait, then they are sent in seq order on the accounts topic keyed by account, and marked published', async () => {
    const { outbox, published, asked } = memoryOutbox([event(1, 'a'), event(2, 'b'), event(3, 'a')]);
    const producer = recordingProducer();
    expect(await publishAccountEvents(outbox, producer, { limit: 10, transactionTimeoutMs: 1234 })).toBe(3);
    expect(producer.sent.map((m) => [m.topic, m.key])).toEqual([
      [TOPICS.accounts, 'a'],
      [TOPICS.accounts, 'b'],
      [TOPICS.accounts, 'a'],
    ]);
    expect(JSON.parse(producer.sent[0]!.value)).toEqual({ type: 'account.created', accountId: 'a', at: '2024-01-01T00:00:01.000Z' });
    expect([...published]).toEqual([1n, 2n, 3n]);
    expect(asked).toEqual({ limit: 10, timeoutMs: 1234 });
  });

  it('when more events wait than the limit, then one round sends the first `limit` (100 by default)', async () => {
    const { outbox, asked } = memoryOutbox(Array.from({ length: 150 }, (_, i) => event(i + 1)));
    expect(await publishAccountEvents(outbox, recordingProducer())).toBe(100);
    expect(asked).toEqual({ limit: 100, timeoutMs: 15_000 });
  });

  it('when another publisher holds the lock or nothing waits, then 0 and nothing is sent', async () => {
    const producer = recordingProducer();
    expect(await publishAccountEvents(memoryOutbox([event(1)], { held: true }).outbox, producer)).toBe(0);
    expect(await publishAccountEvents(memoryOutbox([]).outbox, producer)).toBe(0);
    expect(producer.sent).toEqual([]);
  });

  it('when a send fails, then the events before it are marked, it and every later one are left for the next round, and the error says how many were published', async () => {
    const { outbox, published } = memoryOutbox([event(1), event(2), event(3), event(4)]);
    const error = await publishAccountEvents(
      outbox,
      recordingProducer((key) => key === 'acc-2' || key === 'acc-4'),
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AccountEventsPublishError);
    expect(error).toMatchObject({ published: 1, message: 'account events: 1 published, then a send failed: broker refused acc-2' });
    expect((error as Error).cause).toEqual(new Error('broker refused acc-2'));
    expect([...published]).toEqual([1n]);
    expect(await publishAccountEvents(outbox, recordingProducer())).toBe(3);
    expect([...published]).toEqual([1n, 2n, 3n, 4n]);
  });

  it('when the first send fails, then nothing is marked, and a rejection that is not an Error is wrapped in one', async () => {
    const { outbox, published } = memoryOutbox([event(1)]);
    const producer = {
      send: () => Promise.reject('no leader'),
    };
    await expect(publishAccountEvents(outbox, producer)).rejects.toMatchObject({
      published: 0,
      message: 'account events: 0 published, then a send failed: no leader',
    });
    expect(published.size).toBe(0);
  });
});
