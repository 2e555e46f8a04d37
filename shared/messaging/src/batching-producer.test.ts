import { randomBytes } from 'node:crypto';
import { Partitioners, type Kafka, type PartitionerArgs, type ProducerConfig, type ProducerBatch } from 'kafkajs';
import { createBatchingProducer, KafkaUnavailableError, keyHashPartitioner, murmur2 } from './batching-producer';
import { encodedSize } from './batching-producer-batch';
import { boundedSendSettings } from './kafka';

/** The partitions the stand-in's topics have (each with a leader). */
const PARTITIONS = Array.from({ length: 3 }, (_, partitionId) => ({ partitionId, leader: 1, replicas: [1], isr: [1], partitionErrorCode: 0 }));

interface FakeBatch {
  batch: ProducerBatch;
  /** Answers the request: rejects with `err`, or acknowledges every partition its messages went to but those in `without`. */
  settle(err?: Error, options?: { without?: number[] }): void;
}

/**
 * A kafkajs stand-in: every producer it makes is recorded; each sendBatch places its messages with
 * the producer's own partitioner (as kafkajs does) and waits until the test settles it.
 */
function fakeKafka() {
  const producers: { config: ProducerConfig; batches: FakeBatch[]; disconnected: boolean }[] = [];
  const kafka = {
    producer(config: ProducerConfig) {
      const p = { config, batches: [] as FakeBatch[], disconnected: false };
      const partitioner = (config.createPartitioner ?? Partitioners.DefaultPartitioner)();
      producers.push(p);
      return {
        connect: async () => undefined,
        disconnect: async () => {
          p.disconnected = true;
        },
        sendBatch: (batch: ProducerBatch) =>
          new Promise((resolve, reject) => {
            const placed = new Set(
              batch.topicMessages!.flatMap(({ topic, messages }) =>
                messages.map((message) => `${topic}\0${partitioner({ topic, partitionMetadata: PARTITIONS, message })}`),
              ),
            );
            const metadata = [...placed].map((at) => {
              const [topicName, partition] = at.split('\0');
              return { topicName: topicName!, partition: Number(partition), errorCode: 0 };
            });
            p.batches.push({
              batch,
              settle: (err, { without = [] } = {}) => (err ? reject(err) : resolve(metadata.filter((m) => !without.includes(m.partition)))),
            });
          }),
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

  it('when Kafka answers a request without acknowledging one of its partitions, then the senders to that partition fail (handed over), the others succeed, and the next send goes through a new producer', async () => {
    // kafkajs 2.2.4 resolves such a request when a partition's leader moved, during its retry, to a
    // broker that had already answered for other partitions (tulios/kafkajs#1303, #1798).
    const { kafka, producers } = fakeKafka();
    const unacknowledged: number[] = [];
    const producer = createBatchingProducer({ kafka, lingerMs: 1, onUnacknowledged: (n) => unacknowledged.push(n) });
    await producer.connect();
    const sends = [
      producer.send('t', { value: 'a', partition: 0 }),
      producer.send('t', { value: 'b', partition: 1 }),
      producer.send('t', { value: 'c', partition: 1 }),
      producer.send('u', { value: 'd', partition: 1 }),
    ].map((s) =>
      s.then(
        () => 'ok',
        (e: unknown) => e,
      ),
    );
    await tick();
    producers[0]!.batches[0]!.settle(undefined, { without: [1] });
    const [a, b, c, d] = await Promise.all(sends);
    expect(a).toBe('ok');
    for (const err of [b, c, d]) expect(err).toMatchObject({ name: 'KafkaUnavailableError', handedOver: true });
    expect(unacknowledged).toEqual([3]);
    await tick(20);
    expect(producers).toHaveLength(2);
    expect(producers[0]!.disconnected).toBe(true);
  });

  it('when a request is retried, then an unkeyed message goes to the partition chosen for it before, not the next of the round robin', async () => {
    const { kafka, producers } = fakeKafka();
    await createBatchingProducer({ kafka }).connect();
    const partitioner = producers[0]!.config.createPartitioner!();
    const message = { value: 'v' };
    const first = partitioner({ topic: 't', partitionMetadata: PARTITIONS, message });
    const others = Array.from({ length: 6 }, () => partitioner({ topic: 't', partitionMetadata: PARTITIONS, message: { value: 'w' } }));
    expect(new Set(others).size).toBeGreaterThan(1);
    expect(partitioner({ topic: 't', partitionMetadata: PARTITIONS, message })).toBe(first);
  });

  it('when what waits is over the byte bound, then it goes in several requests one after another, in order, and each sender is answered with its own request', async () => {
    const { kafka, producers } = fakeKafka();
    const value = (name: string) => name.padEnd(300, '.');
    const producer = createBatchingProducer({ kafka, lingerMs: 1, maxBatchBytes: 2 * encodedSize({ key: 'k', value: value('a') }) });
    await producer.connect();
    const settled: string[] = [];
    const sends = ['a', 'b', 'c', 'd', 'e'].map((name) => producer.send('t', { key: 'k', value: value(name) }).then(() => settled.push(name)));
    await tick();
    const { batches } = producers[0]!;
    const names = () => batches.map((b) => values(b).map((v) => v.slice(0, 1)));
    expect(names()).toEqual([['a', 'b']]); // one request in flight at a time
    batches[0]!.settle();
    await tick();
    expect(settled).toEqual(['a', 'b']);
    expect(names()).toEqual([
      ['a', 'b'],
      ['c', 'd'],
    ]);
    batches[1]!.settle();
    await tick();
    expect(names()).toEqual([['a', 'b'], ['c', 'd'], ['e']]);
    batches[2]!.settle();
    await Promise.all(sends);
    expect(settled).toEqual(['a', 'b', 'c', 'd', 'e']);
  });

  it('when one of the requests a caller was split over fails, then the senders of that request fail and those acknowledged before it succeed', async () => {
    const { kafka, producers } = fakeKafka();
    const producer = createBatchingProducer({ kafka, lingerMs: 1, maxBatchBytes: 2 * encodedSize({ value: 'x'.repeat(300) }) });
    await producer.connect();
    const sendAll = (names: string[]) =>
      Promise.all(names.map((n) => producer.send('t', { value: n.padEnd(300, '.') }))).then(
        () => 'ok',
        (e: unknown) => e,
      );
    const first = sendAll(['a1', 'a2']);
    const second = sendAll(['b1', 'b2']); // the second of the three requests
    await tick();
    producers[0]!.batches[0]!.settle();
    await tick();
    producers[0]!.batches[1]!.settle(new Error('The request included a message larger than the max message size the server will accept'));
    expect(await first).toBe('ok');
    expect(await second).toMatchObject({ name: 'KafkaUnavailableError', handedOver: true });
  });

  it('when it is not connected, then a send fails at once, unsent', async () => {
    const { kafka } = fakeKafka();
    const err = await createBatchingProducer({ kafka, lingerMs: 1 })
      .send('t', { value: 'a' })
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ name: 'KafkaUnavailableError', handedOver: false });
  });
});

describe('keyHashPartitioner', () => {
  // kafkajs's own murmur2 (the Java client's), which its DefaultPartitioner uses.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const kafkajsMurmur2 = require('kafkajs/src/producer/partitioners/default/murmur2') as (key: Buffer | string) => number;
  const keys = [
    '',
    'a',
    'ab',
    'abc',
    'abcd',
    '3f1c2a4e-8b7d-4c2a-9e1f-0a1b2c3d4e5f:ann@example.com',
    'ünïcödé 😀 keys',
    ...Array.from({ length: 2000 }, (_, i) => randomBytes(i % 97).toString(i % 2 ? 'latin1' : 'base64')),
  ];

  it('when keys of every length and alphabet are hashed, then murmur2 is the one of kafkajs (and of the Java client)', () => {
    for (const key of keys) expect([key, murmur2(Buffer.from(key))]).toEqual([key, kafkajsMurmur2(key)]);
  });

  it('when messages with and without keys or partitions are placed, then each goes where the DefaultPartitioner puts it', () => {
    const partitionMetadata = Array.from({ length: 12 }, (_, partitionId) => ({
      partitionId,
      leader: partitionId % 3,
      replicas: [0],
      isr: [0],
      partitionErrorCode: 0,
    }));
    const ours = keyHashPartitioner();
    const theirs = Partitioners.DefaultPartitioner();
    for (const key of keys) {
      const args = { topic: 't', partitionMetadata, message: { key, value: 'v' } } as PartitionerArgs;
      expect([key, ours(args)]).toEqual([key, theirs(args)]);
    }
    expect(ours({ topic: 't', partitionMetadata, message: { key: Buffer.from('x'), value: 'v' } })).toBe(
      theirs({ topic: 't', partitionMetadata, message: { key: Buffer.from('x'), value: 'v' } }),
    );
    expect(ours({ topic: 't', partitionMetadata, message: { key: 'x', partition: 7, value: 'v' } })).toBe(7);
    // Without a key: round robin over the partitions that have a leader.
    const unkeyed = Array.from({ length: 24 }, () => ours({ topic: 't', partitionMetadata, message: { value: 'v' } }));
    expect(new Set(unkeyed)).toEqual(new Set(partitionMetadata.map((p) => p.partitionId)));
  });
});

describe('batching producer deadlines', () => {
  it('when Kafka never answers, then every send fails at its own send timeout, the one handed to Kafka saying so', async () => {
    const { kafka, producers } = fakeKafka();
    const producer = createBatchingProducer({ kafka, lingerMs: 1, sendTimeoutMs: 100 });
    await producer.connect();
    const started = Date.now();
    const first = producer.send('t', { value: 'a' }).catch((e: unknown) => [e, Date.now() - started]);
    await tick(40);
    const second = producer.send('t', { value: 'b' }).catch((e: unknown) => [e, Date.now() - started]);
    const [[errA, atA], [errB, atB]] = (await Promise.all([first, second])) as [[unknown, number], [unknown, number]];
    expect(errA).toMatchObject({ name: 'KafkaUnavailableError', handedOver: true, message: 'kafka did not acknowledge within 100 ms' });
    expect(errB).toMatchObject({ name: 'KafkaUnavailableError', handedOver: false });
    expect(atA).toBeGreaterThanOrEqual(95);
    expect(atB).toBeGreaterThanOrEqual(135);
    expect(producers[0]!.batches.map(values)).toEqual([['a']]);
  });

  it('when sends are acknowledged in time, then they resolve, and a later send gets its own full time', async () => {
    const { kafka, producers } = fakeKafka();
    const producer = createBatchingProducer({ kafka, lingerMs: 1, sendTimeoutMs: 80 });
    await producer.connect();
    const sends = Array.from({ length: 5 }, (_, i) => producer.send('t', { value: String(i) }));
    await tick(10);
    producers[0]!.batches[0]!.settle();
    await Promise.all(sends);
    await tick(50); // the first sends' deadlines are 20 ms away
    const later = producer.send('t', { value: 'later' });
    await tick(50); // past the first sends' deadlines, inside its own
    producers[0]!.batches[1]!.settle();
    await expect(later).resolves.toBeUndefined();
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
