// The batching producer's kafkajs producer: connecting, reconnecting in the background, and
// replacing it after a failed request.
//
// After any failed request the producer is replaced by a new one (a new producer id): kafkajs rolls
// sequence numbers back when a request fails, so a request that reached the broker after all would
// make the broker drop the next one of the same size as a "duplicate" — an acknowledged event lost.
//
// It also records the partition kafkajs chose for each message (its partitioner runs at every
// attempt of a request), so that the batching producer can check that a request's answer covers
// every partition its messages went to.
import type { Kafka, Message, PartitionerArgs, Producer, RetryOptions } from 'kafkajs';
import { keyHashPartitioner } from './batching-producer-partitioner.js';

const RECONNECT_PAUSE_MS = { first: 250, max: 2000 };

export interface ProducerConnection {
  /** The connected producer, if any. */
  current(): Producer | undefined;
  /** One connection attempt with a new producer; rejects when no broker answers. */
  connectOnce(): Promise<void>;
  /** Retries in the background until a broker answers (or it is stopped). */
  keepConnecting(): Promise<void>;
  /** After a failed request: this producer's sequence numbers can no longer be trusted. */
  retire(producer: Producer): void;
  /** Connections may be made again (after stop). */
  start(): void;
  /** Stops reconnecting and disconnects the current producer. */
  stop(): Promise<void>;
  /** The partition kafkajs chose for `message` at the last attempt of its request; undefined if it chose none. */
  partitionOf(message: Message): number | undefined;
}

/**
 * keyHashPartitioner, remembering in `chosen` what it chose for each message and choosing it again
 * at a retry (a keyed message gets the same partition anyway; an unkeyed one would move on in the
 * round robin, and its request's answer could then acknowledge the partition it had left).
 */
function recordingPartitioner(chosen: WeakMap<Message, number>) {
  return () => {
    const choose = keyHashPartitioner();
    return (args: PartitionerArgs): number => {
      const before = chosen.get(args.message);
      if (before !== undefined && before < args.partitionMetadata.length) return before;
      const partition = choose(args);
      chosen.set(args.message, partition);
      return partition;
    };
  };
}

/** A new idempotent producer (a new producer id), its partitions recorded in `chosen`. */
function idempotentProducer(kafka: Kafka, retry: RetryOptions, chosen: WeakMap<Message, number>): Producer {
  return kafka.producer({
    createPartitioner: recordingPartitioner(chosen),
    allowAutoTopicCreation: false,
    // A retried request is written once; this allows one request in flight.
    idempotent: true,
    maxInFlightRequests: 1,
    retry,
  });
}

export function createProducerConnection(kafka: Kafka, retry: RetryOptions): ProducerConnection {
  let current: Producer | undefined;
  let connecting: Promise<void> | undefined;
  let stopped = false;
  const chosen = new WeakMap<Message, number>();

  const newProducer = () => idempotentProducer(kafka, retry, chosen);

  /** The current producer is replaced only once the new one is up. */
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

  return {
    current: () => current,
    partitionOf: (message) => chosen.get(message),
    connectOnce,
    keepConnecting,
    retire(producer) {
      if (current === producer) current = undefined;
      void producer.disconnect().catch(() => undefined);
      if (!stopped) void keepConnecting();
    },
    start() {
      stopped = false;
    },
    async stop() {
      stopped = true;
      const producer = current;
      current = undefined;
      await connecting?.catch(() => undefined);
      await producer?.disconnect();
    },
  };
}
