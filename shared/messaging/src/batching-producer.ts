// KafkaJS has no linger setting: concurrent sends are gathered into one sendBatch so acks=all
// costs one round trip per request, not per message. Each caller's promise settles when its message
// is acknowledged by all in-sync replicas, or fails, within `sendTimeoutMs`.
//
// A request holds at most `maxBatch` messages and `maxBatchBytes` bytes (batching-producer-batch.ts:
// the broker refuses a partition's batch over 1 MB); what does not fit waits for the next one, in
// the order it came. The producer is idempotent (a retried request is written once), which allows
// one request in flight: requests go one after another, and what arrives meanwhile waits for the
// next. After a failed request the producer is replaced (batching-producer-connection.ts).
//
// A request counts as written only for the messages whose partition its answer acknowledges:
// kafkajs 2.2.4 can resolve a sendBatch without having sent part of it. When one broker's part
// fails, it retries only the brokers that have not answered yet, by the leaders it then finds; a
// partition whose leader moved to a broker that had already answered for other partitions is never
// sent (tulios/kafkajs#1303, #1798, unreleased). The chaos run saw effects marked published that no
// partition held; such messages now fail (handed over) and the producer is replaced.
//
// Per message it does as little as it can: one timer watches the oldest unsettled send
// (batching-producer-expiry.ts), and keys are hashed to partitions with a 32-bit murmur2
// (batching-producer-partitioner.ts).
import type { Kafka, Message, Producer, RetryOptions } from 'kafkajs';
import { encodedSize, takeBatch, topicMessagesOf, type Waiting } from './batching-producer-batch.js';
import { createProducerConnection, type ProducerConnection } from './batching-producer-connection.js';
import { createExpiryWatch } from './batching-producer-expiry.js';
import { retryWithin } from './kafka.js';

export { keyHashPartitioner, murmur2 } from './batching-producer-partitioner.js';

/**
 * The default byte bound of one request: under Kafka's default message.max.bytes (1,048,588), with
 * room for the record batches' own headers (61 bytes per partition) and a margin.
 */
export const DEFAULT_MAX_BATCH_BYTES = 900_000;

export interface BatchingProducer {
  /** Connects; rejects when no broker answers (see startConnecting for a service that must start anyway). */
  connect(): Promise<void>;
  /**
   * Connects, and keeps retrying in the background until a broker answers (sends fail at once
   * until then). Resolves after the first attempt: true when it connected.
   */
  startConnecting(): Promise<boolean>;
  send(topic: string, message: Message): Promise<void>;
  /** Sends what is waiting, waits for requests in flight, then disconnects. */
  disconnect(): Promise<void>;
  isConnected(): boolean;
}

export interface BatchingProducerOptions {
  kafka: Kafka;
  lingerMs?: number;
  /** The most messages in one request. */
  maxBatch?: number;
  /**
   * The most bytes in one request (keys, values, headers and record framing, uncompressed); keep it
   * under the broker's message.max.bytes. A message larger on its own is sent alone.
   */
  maxBatchBytes?: number;
  /** A send that is not acknowledged within this time fails (the caller answers 503). */
  sendTimeoutMs?: number;
  /**
   * The longest kafkajs may take over one request (see boundedSendSettings): a message is handed to
   * it only while this much of its send timeout is left; otherwise it fails unsent. 0: no check.
   */
  requestBudgetMs?: number;
  /** The producer's retries of a send; by default fitted into the send timeout. */
  retry?: RetryOptions;
  /** A request acknowledged after its senders had been told it failed (the send timeout was too short for the settings). */
  onLateAcknowledgement?(messages: number): void;
  /** A request answered without acknowledging the partitions of some of its messages (they failed; see above). */
  onUnacknowledged?(messages: number): void;
}

interface Pending extends Waiting {
  settled: boolean;
  handedOver: boolean;
  resolve(): void;
  reject(err: unknown): void;
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

/** Retries that fit into the send timeout; the idempotent producer needs at least one. */
function defaultRetry(sendTimeoutMs: number): RetryOptions {
  const fitted = retryWithin(sendTimeoutMs);
  return { ...fitted, retries: Math.max(1, fitted.retries ?? 0) };
}

function settle(p: Pending, err?: unknown): boolean {
  if (p.settled) return false;
  p.settled = true;
  if (err === undefined) p.resolve();
  else p.reject(err);
  return true;
}

/** One request: its senders are answered when it is acknowledged, or all told it failed. */
function produce(
  producer: Producer,
  batch: Pending[],
  connection: ProducerConnection,
  { onLateAcknowledgement, onUnacknowledged }: Pick<BatchingProducerOptions, 'onLateAcknowledgement' | 'onUnacknowledged'>,
): Promise<void> {
  for (const p of batch) p.handedOver = true;
  return producer.sendBatch({ acks: -1, topicMessages: topicMessagesOf(batch) }).then(
    (acknowledged) => {
      const written = new Set(acknowledged.filter((m) => m.errorCode === 0).map((m) => `${m.topicName}\0${m.partition}`));
      const unsent = new Set(batch.filter((p) => !written.has(`${p.topic}\0${connection.partitionOf(p.message)}`)));
      if (unsent.size > 0) {
        const failed = new KafkaUnavailableError(`kafka answered the request without acknowledging the partitions of ${unsent.size} of its messages`, true);
        for (const p of unsent) settle(p, failed);
        onUnacknowledged?.(unsent.size);
        connection.retire(producer);
      }
      let late = 0;
      for (const p of batch) if (!unsent.has(p) && !settle(p)) late += 1;
      if (late > 0) onLateAcknowledgement?.(late);
    },
    (err: unknown) => {
      const failed = new KafkaUnavailableError(`kafka did not take the batch: ${(err as Error).message}`, true, { cause: err });
      for (const p of batch) settle(p, failed);
      connection.retire(producer);
    },
  );
}

/** Connecting: at once (failing if Kafka is down), or in the background until it is up. */
function connecting(connection: ProducerConnection): Pick<BatchingProducer, 'connect' | 'startConnecting'> {
  return {
    async connect() {
      connection.start();
      await connection.connectOnce();
    },
    async startConnecting() {
      connection.start();
      try {
        await connection.connectOnce();
        return true;
      } catch {
        void connection.keepConnecting();
        return false;
      }
    },
  };
}

/** A send waiting for its request: its message, size and deadline, and how its sender is answered. */
function pendingSend(topic: string, message: Message, sendTimeoutMs: number, resolve: () => void, reject: (err: unknown) => void): Pending {
  return { topic, message, bytes: encodedSize(message), deadline: Date.now() + sendTimeoutMs, settled: false, handedOver: false, resolve, reject };
}

/** No producer connected: every waiting send fails now, and nothing is left. */
function notConnected(queue: readonly Pending[]): { batch: Pending[]; rest: Pending[] } {
  for (const p of queue) settle(p, new KafkaUnavailableError('kafka producer is not connected'));
  return { batch: [], rest: [] };
}

/** The next request's sends and those left waiting; a send past its time to be taken fails. */
function nextBatch(queue: Pending[], limits: { maxMessages: number; maxBytes: number; requestBudgetMs: number }): { batch: Pending[]; rest: Pending[] } {
  const { batch, late, rest } = takeBatch(queue, { ...limits, now: Date.now() });
  for (const p of late) settle(p, new KafkaUnavailableError('kafka did not take the event in time'));
  return { batch, rest };
}

export function createBatchingProducer({
  kafka,
  lingerMs = 2,
  maxBatch = 500,
  maxBatchBytes = DEFAULT_MAX_BATCH_BYTES,
  sendTimeoutMs = 5000,
  requestBudgetMs = 0,
  retry,
  onLateAcknowledgement,
  onUnacknowledged,
}: BatchingProducerOptions): BatchingProducer {
  const connection = createProducerConnection(kafka, retry ?? defaultRetry(sendTimeoutMs));
  const expiry = createExpiryWatch<Pending>(sendTimeoutMs, (p) =>
    settle(p, new KafkaUnavailableError(`kafka did not acknowledge within ${sendTimeoutMs} ms`, p.handedOver)),
  );
  let queue: Pending[] = [];
  let timer: NodeJS.Timeout | undefined;
  let inFlight: Promise<void> | undefined;

  /** Sends the next request's worth of what is waiting, unless a request is in flight (it flushes again when done). */
  function flush(): void {
    clearTimeout(timer);
    timer = undefined;
    if (inFlight) return;
    queue = queue.filter((p) => !p.settled);
    if (queue.length === 0) return;
    const producer = connection.current();
    const { batch, rest } = producer ? nextBatch(queue, { maxMessages: maxBatch, maxBytes: maxBatchBytes, requestBudgetMs }) : notConnected(queue);
    queue = rest;
    if (!producer || batch.length === 0) {
      expiry.advance();
      return;
    }
    inFlight = produce(producer, batch, connection, { onLateAcknowledgement, onUnacknowledged }).finally(() => {
      inFlight = undefined;
      expiry.advance();
      if (queue.length > 0) flush();
    });
  }

  return {
    ...connecting(connection),
    send(topic, message) {
      return new Promise<void>((resolve, reject) => {
        const pending = pendingSend(topic, message, sendTimeoutMs, resolve, reject);
        expiry.watch(pending);
        queue.push(pending);
        if (queue.length >= maxBatch) flush();
        else timer ??= setTimeout(flush, lingerMs);
      });
    },
    async disconnect() {
      flush();
      while (inFlight) await inFlight;
      await connection.stop();
    },
    isConnected: () => connection.current() !== undefined,
  };
}
