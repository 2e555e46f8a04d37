// KafkaJS has no linger setting: concurrent sends are gathered into one sendBatch so acks=all
// costs one round trip per batch, not per message. Each caller's promise settles when its batch
// is acknowledged by all in-sync replicas, or fails, within `sendTimeoutMs`.
//
// The producer is idempotent (a retried request is written once), which allows one request in
// flight: batches go one after another, and what arrives meanwhile waits for the next. After any
// failed batch the producer is replaced by a new one (a new producer id): kafkajs rolls sequence
// numbers back when a request fails, so a batch that reached the broker after all would make the
// broker drop the next batch of the same size as a "duplicate" — an acknowledged event lost.
import { Partitioners, type Kafka, type Message, type Producer, type RetryOptions, type TopicMessages } from 'kafkajs';
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
  timer: NodeJS.Timeout;
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

  function newProducer(): Producer {
    return kafka.producer({
      createPartitioner: Partitioners.DefaultPartitioner,
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
    clearTimeout(p.timer);
    if (err === undefined) p.resolve();
    else p.reject(err);
    return true;
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
    if (batch.length === 0) return;

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
        const late = batch.filter((p) => !settle(p)).length;
        if (late > 0) onLateAcknowledgement?.(late);
      },
      (err: unknown) => {
        const failed = new KafkaUnavailableError(`kafka did not take the batch: ${(err as Error).message}`, true, { cause: err });
        batch.forEach((p) => settle(p, failed));
        retire(producer);
      },
    ).finally(() => {
      inFlight = undefined;
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
        const pending: Pending = { topic, message, deadline: Date.now() + sendTimeoutMs, settled: false, handedOver: false, resolve, reject, timer: undefined as unknown as NodeJS.Timeout };
        pending.timer = setTimeout(() => settle(pending, new KafkaUnavailableError(`kafka did not acknowledge within ${sendTimeoutMs} ms`, pending.handedOver)), sendTimeoutMs);
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
