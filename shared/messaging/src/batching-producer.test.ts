import type { Kafka, ProducerConfig, ProducerBatch } from 'kafkajs';
import { createBatchingProducer, KafkaUnavailableError } from './batching-producer';
import { boundedSendSettings } from './kafka';

/** A kafkajs stand-in: every producer it makes is recorded; each sendBatch waits until the test settles it. */
function fakeKafka() {
  const producers: { config: ProducerConfig; batches: { batch: ProducerBatch; settle(err?: Error): void }[]; disconnected: boolean }[] = [];
  const kafka = {
    producer(config: ProducerConfig) {
      const p = { config, batches: [] as { batch: ProducerBatch; settle(err?: Error): void }[], disconnected: false };
      producers.push(p);
      return {
        connect: async () => undefined,
        disconnect: async () => {
          p.disconnected = true;
        },
        sendBatch: (batch: ProducerBatch) =>
          new Promise((resolve, reject) => p.batches.push({ batch, settle: (err?: Error) => (err ? reject(err) : resolve([])) })),
      };
    },
  } as unknown as Kafka;
  return { kafka, producers };
}

const tick = (ms = 5) => new Promise((r) => setTimeout(r, ms));
const values = (b: { batch: ProducerBatch }) => b.batch.topicMessages!.flatMap((t) => t.messages.map((m) => String(m.value)));

describe('batching producer', () => {
  it('when it connects, then its producer is idempotent with one request in flight', async () => {
    const { kafka, producers } = fakeKafka();
    await createBatchingProducer({ kafka }).connect();
    expect(producers[0]!.config).toMatchObject({ idempotent: true, maxInFlightRequests: 1 });
    expect(producers[0]!.config.retry?.retries).toBeGreaterThanOrEqual(1);
  });

  it('when a batch is in flight, then later sends wait and go together in the next batch', async () => {
    const { kafka, producers } = fakeKafka();
    const producer = createBatchingProducer({ kafka, lingerMs: 1 });
    await producer.connect();
    const first = producer.send('t', { value: 'a' });
    await tick();
    const later = [producer.send('t', { value: 'b' }), producer.send('t', { value: 'c' })];
    await tick();
    const { batches } = producers[0]!;
    expect(batches.map(values)).toEqual([['a']]);
    batches[0]!.settle();
    await first;
    await tick();
    expect(batches.map(values)).toEqual([['a'], ['b', 'c']]);
    batches[1]!.settle();
    await Promise.all(later);
  });

  it('when a send waited until too little of its time is left for Kafka to finish, then it fails unsent', async () => {
    const { kafka, producers } = fakeKafka();
    const producer = createBatchingProducer({ kafka, lingerMs: 1, sendTimeoutMs: 200, requestBudgetMs: 150 });
    await producer.connect();
    const first = producer.send('t', { value: 'a' });
    await tick();
    const waiting = producer.send('t', { value: 'b' }).catch((e: unknown) => e);
    await tick(80); // b now has < 150 ms of its 200 left
    producers[0]!.batches[0]!.settle();
    await first;
    const err = await waiting;
    expect(err).toBeInstanceOf(KafkaUnavailableError);
    expect((err as KafkaUnavailableError).handedOver).toBe(false);
    await tick();
    expect(producers[0]!.batches).toHaveLength(1);
  });

  it('when a batch fails, then its senders learn it was handed over, and the next send goes through a new producer (a new producer id)', async () => {
    const { kafka, producers } = fakeKafka();
    const producer = createBatchingProducer({ kafka, lingerMs: 1 });
    await producer.connect();
    const failing = producer.send('t', { value: 'a' }).catch((e: unknown) => e);
    await tick();
    producers[0]!.batches[0]!.settle(new Error('Request Produce timed out'));
    const err = await failing;
    expect(err).toMatchObject({ name: 'KafkaUnavailableError', handedOver: true });
    await tick(20);
    expect(producers).toHaveLength(2);
    expect(producers[0]!.disconnected).toBe(true);
    const next = producer.send('t', { value: 'b' });
    await tick();
    expect(producers[1]!.batches.map(values)).toEqual([['b']]);
    producers[1]!.batches[0]!.settle();
    await next;
  });

  it('when it is not connected, then a send fails at once, unsent', async () => {
    const { kafka } = fakeKafka();
    const err = await createBatchingProducer({ kafka, lingerMs: 1 }).send('t', { value: 'a' }).catch((e: unknown) => e);
    expect(err).toMatchObject({ name: 'KafkaUnavailableError', handedOver: false });
  });
});

describe('boundedSendSettings', () => {
  it.each([500, 1500, 3000, 5000, 30_000])('when the send timeout is %p ms, then two tries of one request and the pause fit inside it', (timeout) => {
    const s = boundedSendSettings(timeout);
    expect(s.worstCaseMs).toBeLessThan(timeout);
    expect(s.worstCaseMs).toBeGreaterThanOrEqual(2 * s.requestTimeout);
    expect(s.producerRetry.retries).toBe(1);
    expect(s.clientRetry.retries).toBe(0);
  });
});
