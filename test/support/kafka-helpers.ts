// Reading and writing the real topics from tests: end offsets before an act, the messages written
// after them, and raw messages produced straight onto a topic (bypassing the gateway).
import { randomUUID } from 'node:crypto';
import { Kafka, Partitioners, logLevel, type IHeaders, type Message } from 'kafkajs';
import { kafkaBrokers } from '../config';

/** Partition number → offset (as kafkajs spells offsets: decimal strings). */
export type Offsets = Map<number, string>;

export interface ReadMessage {
  partition: number;
  offset: string;
  key: string | null;
  value: string | null;
  headers: Record<string, string>;
  /** The value parsed as JSON, or undefined when it is not JSON. */
  json: any; // eslint-disable-line @typescript-eslint/no-explicit-any
}

let kafka: Kafka | undefined;
export function testKafka(): Kafka {
  return (kafka ??= new Kafka({
    clientId: 'glimpse-tests',
    brokers: kafkaBrokers(),
    logLevel: logLevel.NOTHING,
    retry: { retries: 8, initialRetryTime: 200 },
  }));
}

/** The offset the next message of each partition will get (the high watermark). */
export async function endOffsets(topic: string): Promise<Offsets> {
  const admin = testKafka().admin();
  await admin.connect();
  try {
    const offsets = await admin.fetchTopicOffsets(topic);
    return new Map(offsets.map((o) => [o.partition, o.high]));
  } finally {
    await admin.disconnect();
  }
}

/**
 * Deletes every record the topic holds now (Kafka's DeleteRecords up to each partition's end), so a
 * consumer group without committed offsets, which starts at the log's start, reads only what comes
 * after. For the tests of exactly that case: on the shared broker a topic keeps what earlier runs
 * and benchmarks wrote for its retention (24 h), and one bench run leaves hundreds of thousands of
 * effects for a new group to read first. The records are the transient kind (events, effects);
 * a consumer whose committed offset is now before the log's start resumes from the start.
 */
export async function truncateTopic(topic: string): Promise<void> {
  const admin = testKafka().admin();
  await admin.connect();
  try {
    const offsets = await admin.fetchTopicOffsets(topic);
    await admin.deleteTopicRecords({ topic, partitions: offsets.map((o) => ({ partition: o.partition, offset: o.high })) });
  } finally {
    await admin.disconnect();
  }
}

/**
 * A new consumer group id whose committed offsets are the topic's current end: a consumer in it
 * reads only what is written from now on, never the backlog other runs (or a benchmark) left on
 * the shared broker.
 */
export async function freshGroupAtEnd(topic: string, prefix: string): Promise<string> {
  const groupId = `${prefix}-${randomUUID()}`;
  const ends = await endOffsets(topic);
  // admin.setOffsets would do, but its internal consumer sits out a 5 s fetch wait; this one commits and leaves at once.
  const consumer = testKafka().consumer({ groupId, maxWaitTimeInMs: 50, sessionTimeout: 6000, heartbeatInterval: 1000 });
  await consumer.connect();
  try {
    await consumer.subscribe({ topic, fromBeginning: false });
    const joined = new Promise((resolve) => consumer.on(consumer.events.GROUP_JOIN, resolve));
    await consumer.run({ autoCommit: false, eachMessage: async () => undefined });
    await joined;
    await consumer.commitOffsets([...ends].map(([partition, offset]) => ({ topic, partition, offset })));
    return groupId;
  } finally {
    await consumer.disconnect();
  }
}

/** Produces messages as they are (acks=all), with the same partitioner as the services, so a key lands where theirs would. */
export async function produceRaw(topic: string, messages: Message[]): Promise<void> {
  const producer = testKafka().producer({ createPartitioner: Partitioners.DefaultPartitioner, allowAutoTopicCreation: false });
  await producer.connect();
  try {
    await producer.send({ topic, acks: -1, messages });
  } finally {
    await producer.disconnect();
  }
}

function headersOf(headers: IHeaders | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers ?? {})) if (v !== undefined) out[k] = Array.isArray(v) ? v.map(String).join(',') : v.toString();
  return out;
}

function parseJson(value: string | null): unknown {
  try {
    return value === null ? undefined : JSON.parse(value);
  } catch {
    return undefined;
  }
}

export interface ReadOptions {
  /** Where to start, per partition (usually endOffsets() taken before the act). */
  from: Offsets;
  /** Read at least up to these offsets (exclusive) on every partition, e.g. endOffsets() taken after the act. */
  to?: Offsets;
  /** Keep reading until this holds for what has been read so far. */
  until?(messages: ReadMessage[]): boolean;
  timeoutMs?: number;
}

/**
 * Reads a topic from the given offsets with a throwaway consumer group that commits nothing, until
 * `until` holds and every partition has reached `to`. Fails with what it has read on timeout.
 */
export async function readTopic(topic: string, { from, to, until, timeoutMs = 20_000 }: ReadOptions): Promise<ReadMessage[]> {
  const messages: ReadMessage[] = [];
  const position = new Map<number, bigint>([...from].map(([p, o]) => [p, BigInt(o)]));
  const reachedTo = () => !to || [...to].every(([p, o]) => (position.get(p) ?? 0n) >= BigInt(o));
  const done = () => reachedTo() && (until ? until(messages) : true);

  const consumer = testKafka().consumer({
    groupId: `glimpse-test-reader-${randomUUID()}`,
    maxWaitTimeInMs: 100,
    sessionTimeout: 6000,
    heartbeatInterval: 1000,
  });
  await consumer.connect();
  try {
    await consumer.subscribe({ topic, fromBeginning: false });
    let resolveDone!: () => void;
    const finished = new Promise<void>((r) => (resolveDone = r));
    await consumer.run({
      autoCommit: false,
      eachMessage: async ({ partition, message }) => {
        if (BigInt(message.offset) < BigInt(from.get(partition) ?? '0')) return;
        const value = message.value?.toString('utf8') ?? null;
        messages.push({
          partition,
          offset: message.offset,
          key: message.key?.toString('utf8') ?? null,
          value,
          headers: headersOf(message.headers),
          json: parseJson(value),
        });
        position.set(partition, BigInt(message.offset) + 1n);
        if (done()) resolveDone();
      },
    });
    for (const [partition, offset] of from) consumer.seek({ topic, partition, offset });
    if (done()) return messages;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () =>
          reject(
            new Error(
              `timed out after ${timeoutMs} ms reading ${topic}; read ${messages.length} message(s), positions ${JSON.stringify(Object.fromEntries([...position].map(([p, o]) => [p, String(o)])))}`,
            ),
          ),
        timeoutMs,
      );
    });
    await Promise.race([finished, timeout]).finally(() => clearTimeout(timer));
    return messages;
  } finally {
    await consumer.disconnect();
  }
}

/** Messages that belong to an account: keyed `<accountId>:…` or carrying its accountId. */
export function ofAccount(messages: ReadMessage[], accountId: string): ReadMessage[] {
  return messages.filter((m) => m.key?.startsWith(`${accountId}:`) || m.json?.accountId === accountId || m.value?.includes(accountId));
}
