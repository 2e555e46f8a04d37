// KafkaJS has no linger setting: concurrent sends are gathered into one sendBatch (after a few
// ms or N messages) so acks=all costs one round trip per batch, not per message. Each caller's
// promise settles when its batch is acknowledged by all in-sync replicas, or fails.
import { Partitioners, type Kafka, type Message, type Producer, type TopicMessages } from 'kafkajs';
import { retryWithin } from './kafka.js';

export interface BatchingProducer {
  connect(): Promise<void>;
  send(topic: string, message: Message): Promise<void>;
  /** Sends what is waiting, waits for batches in flight, then disconnects. */
  disconnect(): Promise<void>;
  isConnected(): boolean;
}

export interface BatchingProducerOptions {
  kafka: Kafka;
  lingerMs?: number;
  maxBatch?: number;
  /** A send that is not acknowledged within this time fails (the caller answers 503). */
  sendTimeoutMs?: number;
}

interface Pending {
  topic: string;
  message: Message;
  resolve(): void;
  reject(err: unknown): void;
}

export function createBatchingProducer({ kafka, lingerMs = 2, maxBatch = 500, sendTimeoutMs = 5000 }: BatchingProducerOptions): BatchingProducer {
  const producer: Producer = kafka.producer({
    createPartitioner: Partitioners.DefaultPartitioner,
    allowAutoTopicCreation: false,
    retry: retryWithin(sendTimeoutMs),
  });
  let connected = false;
  let queue: Pending[] = [];
  let timer: NodeJS.Timeout | undefined;
  const inFlight = new Set<Promise<void>>();
  producer.on(producer.events.DISCONNECT, () => { connected = false; });
  producer.on(producer.events.CONNECT, () => { connected = true; });

  function withTimeout<T>(promise: Promise<T>): Promise<T> {
    let t: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      t = setTimeout(() => reject(new Error(`kafka did not acknowledge within ${sendTimeoutMs} ms`)), sendTimeoutMs);
    });
    return Promise.race([promise, timeout]).finally(() => clearTimeout(t));
  }

  function flush(): void {
    if (timer) clearTimeout(timer);
    timer = undefined;
    if (queue.length === 0) return;
    const batch = queue;
    queue = [];
    const byTopic = new Map<string, Message[]>();
    for (const p of batch) {
      const list = byTopic.get(p.topic) ?? [];
      list.push(p.message);
      byTopic.set(p.topic, list);
    }
    const topicMessages: TopicMessages[] = [...byTopic].map(([topic, messages]) => ({ topic, messages }));
    const sending = withTimeout(producer.sendBatch({ acks: -1, topicMessages })).then(
      () => batch.forEach((p) => p.resolve()),
      (err: unknown) => batch.forEach((p) => p.reject(err)),
    );
    inFlight.add(sending);
    void sending.finally(() => inFlight.delete(sending));
  }

  return {
    async connect() {
      await producer.connect();
      connected = true;
    },
    send(topic, message) {
      return new Promise<void>((resolve, reject) => {
        queue.push({ topic, message, resolve, reject });
        if (queue.length >= maxBatch) flush();
        else timer ??= setTimeout(flush, lingerMs);
      });
    },
    async disconnect() {
      flush();
      await Promise.allSettled([...inFlight]);
      await producer.disconnect();
      connected = false;
    },
    isConnected: () => connected,
  };
}
