// KafkaJS has no linger setting: concurrent sends are gathered into one sendBatch so acks=all
// costs one round trip per batch, not per message. Each caller's promise settles when its batch
// is acknowledged by all in-sync replicas, or fails, within `sendTimeoutMs`.
//
// The producer is idempotent (a retried request is written once), which allows one request in
// flight: batches go one after another, and what arrives meanwhile waits for the next. After any
// failed batch the producer is replaced by a new one (a new producer id): kafkajs rolls sequence
// numbers back when a request fails, so a batch that reached the broker after all would make the
// broker drop the next batch of the same size as a "duplicate" — an acknowledged event lost.
//
// Per message it does as little as it can: one timer watches the oldest unsettled send (sends
// expire in the order they came), and keys are hashed to partitions with a 32-bit murmur2 (the
// one of kafkajs's DefaultPartitioner, which builds 64-bit Long objects for every four bytes).
import type { Kafka, Message, PartitionerArgs, Producer, RetryOptions, TopicMessages } from 'kafkajs';
import { randomInt } from 'node:crypto';
import { retryWithin } from './kafka.js';

export interface BatchingProducer {
  /** Connects; rejects when no broker answers (see startConnecting for a service that must start anyway). */
  connect(): Promise<void>;
  /**
   * Connects, and keeps retrying in the background until a broker answers (sends fail at once
   * until then). Resolves after the first attempt: true when it connected.
   */
  startConnecting(): Promise<boolean>;
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
  /**
   * The longest kafkajs may take over one batch (see boundedSendSettings): a message is handed to
   * it only while this much of its send timeout is left; otherwise it fails unsent. 0: no check.
   */
  requestBudgetMs?: number;
  /** The producer's retries of a send; by default fitted into the send timeout. */
  retry?: RetryOptions;
  /** A batch acknowledged after its senders had been told it failed (the send timeout was too short for the settings). */
  onLateAcknowledgement?(messages: number): void;
}

interface Pending {
  topic: string;
  message: Message;
  deadline: number;
  settled: boolean;
  handedOver: boolean;
  resolve(): void;
  reject(err: unknown): void;
}

/**
 * Kafka's murmur2 (the Java client's Utils.murmur2) in 32-bit arithmetic: the same hash as
 * kafkajs's DefaultPartitioner, so a key goes to the same partition as before (and as with a Java
 * producer). A test holds it to kafkajs's own implementation.
 */
export function murmur2(data: Uint8Array): number {
  const m = 0x5bd1e995;
  const length = data.length;
  let h = 0x9747b28c ^ length;
  const whole = length & ~3;
  for (let i = 0; i < whole; i += 4) {
    let k = data[i]! | (data[i + 1]! << 8) | (data[i + 2]! << 16) | (data[i + 3]! << 24);
    k = Math.imul(k, m);
    k ^= k >>> 24;
    k = Math.imul(k, m);
    h = Math.imul(h, m) ^ k;
  }
  switch (length & 3) {
    case 3:
      h ^= data[whole + 2]! << 16;
    // falls through
    case 2:
      h ^= data[whole + 1]! << 8;
    // falls through
    case 1:
      h ^= data[whole]!;
      h = Math.imul(h, m);
  }
  h ^= h >>> 13;
  h = Math.imul(h, m);
  h ^= h >>> 15;
  return h | 0;
}

/**
 * kafkajs's DefaultPartitioner, rule for rule: a message's own partition; else its key's murmur2
 * over all the topic's partitions; else round robin over the partitions that have a leader.
 */
export function keyHashPartitioner() {
  const counters = new Map<string, number>();
  return ({ topic, partitionMetadata, message }: PartitionerArgs): number => {
    if (message.partition !== null && message.partition !== undefined) return message.partition;
    const { key } = message;
    if (key !== null && key !== undefined) {
      const bytes = typeof key === 'string' ? Buffer.from(key) : key;
      return (murmur2(bytes) & 0x7fffffff) % partitionMetadata.length;
    }
    const next = ((counters.get(topic) ?? randomInt(2 ** 32 - 1)) + 1) & 0x7fffffff;
    counters.set(topic, next);
    const available = partitionMetadata.filter((p) => p.leader >= 0);
    return available.length > 0 ? available[next % available.length]!.partitionId : next % partitionMetadata.length;
  };
}

/** Fails a send; `handedOver` says whether kafkajs had the message (it may be written still). */
export class KafkaUnavailableError extends Error {
  constructor(
    message: string,
    readonly handedOver = false,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'KafkaUnavailableError';
  }
}

const RECONNECT_PAUSE_MS = { first: 250, max: 2000 };

export function createBatchingProducer({
  kafka,
  lingerMs = 2,
  maxBatch = 500,
  sendTimeoutMs = 5000,
  requestBudgetMs = 0,
  retry,
  onLateAcknowledgement,
}: BatchingProducerOptions): BatchingProducer {
  const fitted = retryWithin(sendTimeoutMs);
  // The idempotent producer needs at least one retry.
  const producerRetry = retry ?? { ...fitted, retries: Math.max(1, fitted.retries ?? 0) };
  let current: Producer | undefined;
  let connecting: Promise<void> | undefined;
  let stopped = false;
  let queue: Pending[] = [];
  let timer: NodeJS.Timeout | undefined;
  let inFlight: Promise<void> | undefined;
  // Every send not yet settled, oldest first (with settled ones until the head moves past them):
  // all expire `sendTimeoutMs` after they came, so one timer for the oldest watches them all.
  let watched: Pending[] = [];
  let head = 0;
  let watchTimer: NodeJS.Timeout | undefined;

  function newProducer(): Producer {
    return kafka.producer({
      createPartitioner: keyHashPartitioner,
      allowAutoTopicCreation: false,
      idempotent: true,
      maxInFlightRequests: 1,
      retry: producerRetry,
    });
  }

  /** One connection attempt with a new producer (a new producer id); the current one only once it is up. */
  function connectOnce(): Promise<void> {
    connecting ??= (async () => {
      const producer = newProducer();
      try {
        await producer.connect();
        if (stopped) {
          await producer.disconnect().catch(() => undefined);
          return;
        }
        current = producer;
      } catch (err) {
        await producer.disconnect().catch(() => undefined);
        throw err;
      }
    })().finally(() => {
      connecting = undefined;
    });
    return connecting;
  }

  async function keepConnecting(): Promise<void> {
    for (let pause = RECONNECT_PAUSE_MS.first; !stopped && !current; pause = Math.min(pause * 2, RECONNECT_PAUSE_MS.max)) {
      try {
        await connectOnce();
      } catch {
        await new Promise((r) => setTimeout(r, pause).unref());
      }
    }
  }

  /** After a failed batch: this producer's sequence numbers can no longer be trusted. */
  function retire(producer: Producer): void {
    if (current === producer) current = undefined;
    void producer.disconnect().catch(() => undefined);
    if (!stopped) void keepConnecting();
  }

  function settle(p: Pending, err?: unknown): boolean {
    if (p.settled) return false;
    p.settled = true;
    if (err === undefined) p.resolve();
    else p.reject(err);
    return true;
  }

  /** Moves the head past settled sends; no timer is left running once none is watched. */
  function advance(): void {
    while (head < watched.length && watched[head]!.settled) head += 1;
    if (head === watched.length) {
      watched = [];
      head = 0;
      clearTimeout(watchTimer);
      watchTimer = undefined;
    } else if (head >= 1024 && head * 2 >= watched.length) {
      watched = watched.slice(head);
      head = 0;
    }
  }

  /** Fails the sends whose time is up (the oldest first), then waits for the next one's. */
  function expire(): void {
    watchTimer = undefined;
    const now = Date.now();
    for (; head < watched.length && (watched[head]!.settled || watched[head]!.deadline <= now); head += 1) {
      const p = watched[head]!;
      settle(p, new KafkaUnavailableError(`kafka did not acknowledge within ${sendTimeoutMs} ms`, p.handedOver));
    }
    advance();
    if (head < watched.length) watchTimer = setTimeout(expire, Math.max(0, watched[head]!.deadline - now));
  }

  function flush(): void {
    if (timer) clearTimeout(timer);
    timer = undefined;
    if (inFlight) return; // the batch in flight flushes again when it is done
    const now = Date.now();
    queue = queue.filter((p) => !p.settled);
    if (queue.length === 0) return;
    const producer = current;
    if (!producer) {
      const batch = queue;
      queue = [];
      batch.forEach((p) => settle(p, new KafkaUnavailableError('kafka producer is not connected')));
      advance();
      return;
    }
    const batch: Pending[] = [];
    const rest: Pending[] = [];
    for (const p of queue) {
      if (batch.length >= maxBatch) rest.push(p);
      // Too late to be sure kafkajs is done before this sender is answered: fail it unsent.
      else if (requestBudgetMs > 0 && p.deadline - now < requestBudgetMs) settle(p, new KafkaUnavailableError('kafka did not take the event in time'));
      else batch.push(p);
    }
    queue = rest;
    if (batch.length === 0) {
      advance();
      return;
    }

    const byTopic = new Map<string, Message[]>();
    for (const p of batch) {
      const list = byTopic.get(p.topic) ?? [];
      list.push(p.message);
      byTopic.set(p.topic, list);
    }
    const topicMessages: TopicMessages[] = [...byTopic].map(([topic, messages]) => ({ topic, messages }));
    batch.forEach((p) => (p.handedOver = true));
    inFlight = producer.sendBatch({ acks: -1, topicMessages }).then(
      () => {
        let late = 0;
        for (const p of batch) if (!settle(p)) late += 1;
        if (late > 0) onLateAcknowledgement?.(late);
      },
      (err: unknown) => {
        const failed = new KafkaUnavailableError(`kafka did not take the batch: ${(err as Error).message}`, true, { cause: err });
        for (const p of batch) settle(p, failed);
        retire(producer);
      },
    ).finally(() => {
      inFlight = undefined;
      advance();
      if (queue.length > 0) flush();
    });
  }

  return {
    async connect() {
      stopped = false;
      await connectOnce();
    },
    async startConnecting() {
      stopped = false;
      try {
        await connectOnce();
        return true;
      } catch {
        void keepConnecting();
        return false;
      }
    },
    send(topic, message) {
      return new Promise<void>((resolve, reject) => {
        const pending: Pending = { topic, message, deadline: Date.now() + sendTimeoutMs, settled: false, handedOver: false, resolve, reject };
        watched.push(pending);
        watchTimer ??= setTimeout(expire, sendTimeoutMs);
        queue.push(pending);
        if (queue.length >= maxBatch) flush();
        else timer ??= setTimeout(flush, lingerMs);
      });
    },
    async disconnect() {
      flush();
      while (inFlight) await inFlight;
      stopped = true;
      const producer = current;
      current = undefined;
      await connecting?.catch(() => undefined);
      await producer?.disconnect();
    },
    isConnected: () => current !== undefined,
  };
}
