// The skeleton of a consumer group that applies a topic in batches, shared by the services that
// keep a store from a topic (the playbook on events.inbound, visitors on visitors.collected):
//
//   const consumer = createBatchConsumer<Event>({
//     kafka, topic, deadLetterTopic, groupId, concurrency, logger, registry, producer,
//     processed,                      // the service's Counter<'outcome'>; dead letters count as dead_letter
//     parse: (message) => Event | { invalid: 'why' },   // invalid: dead-lettered at once
//     apply: async (items, lease) => { one transaction; then publish with untilDone(…, lease) },
//     isOutage: outageCheck({ known, probe: () => db.$queryRawUnsafe('SELECT 1') }),
//     onStop: async () => { … after the group is left },
//   });
//   await consumer.start(); consumer.lags(); consumer.stuck(); await consumer.stop();
//
// Each partition's fetched batch is cut into chunks of at most `maxBatch` messages; a chunk's valid
// messages go to `apply` together, and only once it returns are their offsets resolved and
// committed. A crash before that redelivers the chunk, so `apply` must be idempotent (dedup ids).
// A chunk whose apply fails while the store answers is bisected (bisect.ts) until the failing
// message is alone, which goes to the dead-letter topic with its reason after `maxAttempts`; the
// partition moves on. An outage (`isOutage`) is waited out, never dead-lettered. The lag per
// partition and whether it is stuck (behind, no progress for `stuckAfterMs`) are on /metrics
// (consumer-metrics.ts) and from lags()/stuck() for /readyz.
import type { Consumer, EachBatchPayload, Kafka, KafkaMessage } from 'kafkajs';
import type { Counter, Registry } from 'prom-client';
import type { Logger } from '@glimpse/logging';
import type { BatchingProducer } from '../batching-producer.js';
import { applyBisecting, backoff, StoppedError } from './bisect.js';
import { createConsumerMetrics, type ConsumerMetrics } from './consumer-metrics.js';
import { createDeadLetters, type DeadLetter } from './dead-letters.js';
import { failureReason } from './failure-reason.js';
import { createLagPoller } from './lag-poller.js';
import { LagTracker, type PartitionLag } from './lag-tracker.js';
import { createUntilDone, partitionLease, type PartitionLease, type UntilDone } from './partition-lease.js';

export interface BatchItem<T> {
  value: T;
  message: KafkaMessage;
}

export type ParseResult<T> = T | { invalid: string };

export interface BatchConsumerOptions<T> {
  kafka: Kafka;
  topic: string;
  deadLetterTopic: string;
  groupId: string;
  /** Partitions applied at the same time by this process. */
  concurrency: number;
  sessionTimeoutMs?: number;
  logger: Logger;
  registry: Registry;
  /** Sends dead letters (and whatever `apply` publishes). */
  producer: BatchingProducer;
  /** The service's counter of handled messages by outcome; the skeleton counts `dead_letter`, `apply` the rest. */
  processed?: Counter<'outcome'>;
  /** A message's value, or why it can never be applied (it goes to the dead-letter topic at once). */
  parse(message: KafkaMessage): ParseResult<T>;
  /** Applies a chunk (one transaction), then publishes what it must through `untilDone(…, lease)`. Throws: the chunk is retried or bisected. */
  apply(items: BatchItem<T>[], lease: PartitionLease): Promise<void>;
  /** True when a failure is a dependency's outage (retry the chunk whole), not the messages' fault. */
  isOutage(err: unknown): Promise<boolean>;
  /** The dead-letter reason: codes only, never a value (default failureReason). */
  reason?(err: unknown): string;
  /** Most messages applied in one call of `apply` (default 1000). */
  maxBatch?: number;
  /** Attempts of one failing message before it is dead-lettered (default 3). */
  maxAttempts?: number;
  retryBackoffMs?: number;
  retryBackoffMaxMs?: number;
  /** Behind and without progress this long: stuck (default 60 s). */
  stuckAfterMs?: number;
  /** The setting behind stuckAfterMs, named in the stuck gauge's help (e.g. PLAYBOOK_STUCK_AFTER_MS). */
  stuckSetting?: string;
  /** How often the broker is asked for end and committed offsets (default 5 s). */
  lagPollMs?: number;
  /** After the group is left (and before the lag poller's admin disconnects): flush what the service keeps in memory. */
  onStop?(): Promise<void>;
  /**
   * A fetch waits for this many bytes (default 1: answer at once) or `fetchMaxWaitMs`, whichever
   * comes first: a consumer keeping up then applies fuller chunks, so the per-transaction cost is
   * spread over more messages, at the price of that much latency.
   */
  fetchMinBytes?: number;
  fetchMaxWaitMs?: number;
}

/**
 * The settings a service passes through from its configuration (group, concurrency, batch size,
 * timings) with the clients it shares (Kafka, producer, logger, registry); the rest of
 * BatchConsumerOptions (topic, parse, apply, outage check) is the service's own code.
 */
export type BatchConsumerSettings = Omit<
  BatchConsumerOptions<never>,
  'topic' | 'deadLetterTopic' | 'processed' | 'parse' | 'apply' | 'isOutage' | 'reason' | 'stuckSetting' | 'onStop'
>;

export interface BatchConsumer {
  start(): Promise<void>;
  /** Leaves the group cleanly: the chunk in hand is finished and committed first. */
  stop(): Promise<void>;
  isRunning(): boolean;
  lags(): PartitionLag[];
  stuck(): PartitionLag[];
  consumer: Consumer;
  /** Retries `what` until done while the lease's partition is ours (for publishing after the transaction). */
  untilDone: UntilDone;
}

export function isInvalid<T>(parsed: ParseResult<T>): parsed is { invalid: string } {
  return typeof parsed === 'object' && parsed !== null && 'invalid' in parsed && typeof (parsed as { invalid: unknown }).invalid === 'string';
}

export function createBatchConsumer<T>(options: BatchConsumerOptions<T>): BatchConsumer {
  const { kafka, topic, groupId, logger } = options;
  const sessionTimeout = options.sessionTimeoutMs ?? 15_000;
  const heartbeatInterval = Math.min(3000, Math.floor(sessionTimeout / 3));
  const consumer = kafka.consumer({
    groupId,
    sessionTimeout,
    heartbeatInterval,
    retry: { retries: 5 },
    ...(options.fetchMinBytes ? { minBytes: options.fetchMinBytes, maxWaitTimeInMs: options.fetchMaxWaitMs ?? 250 } : {}),
  });
  const tracker = new LagTracker(options.stuckAfterMs ?? 60_000);
  const metrics = createConsumerMetrics({ registry: options.registry, tracker, stuckSetting: options.stuckSetting });
  const poller = createLagPoller({ admin: kafka.admin({ retry: { retries: 0 } }), topic, groupId, tracker, logger, everyMs: options.lagPollMs ?? 5000 });
  const backoffMs = backoff(options.retryBackoffMs ?? 200, options.retryBackoffMaxMs ?? 5000);
  const untilDone = createUntilDone({ backoffMs, logger, onRetry: () => metrics.retries.inc({ kind: 'publish' }) });
  const deadLetter = createDeadLetters({ ...options, untilDone, onDeadLetter: () => options.processed?.inc({ outcome: 'dead_letter' }) });
  const chunks = chunkApplier(options, { metrics, deadLetter, backoffMs });
  let running = false;
  let stopping = false;

  consumer.on(consumer.events.CRASH, (e) => {
    logger.error({ err: e.payload.error, restart: e.payload.restart }, 'consumer crashed');
    running = e.payload.restart;
  });
  consumer.on(consumer.events.GROUP_JOIN, (e) => tracker.assign(e.payload.memberAssignment[topic] ?? []));

  return {
    consumer,
    untilDone,
    async start() {
      stopping = false;
      await consumer.connect();
      await consumer.subscribe({ topic, fromBeginning: true });
      const maxBatch = options.maxBatch ?? 1000;
      await consumer.run({
        partitionsConsumedConcurrently: options.concurrency,
        eachBatchAutoResolve: false,
        eachBatch: (payload) => runBatch(payload, { maxBatch, tracker, stopping: () => stopping, applyChunk: chunks }),
      });
      running = true;
      poller.start();
    },
    async stop() {
      stopping = true;
      running = false;
      await consumer.disconnect();
      await options.onStop?.();
      await poller.stop();
    },
    isRunning: () => running,
    lags: () => tracker.lags(),
    stuck: () => tracker.stuck(),
  };
}

type ApplyChunk = (chunk: KafkaMessage[], lease: PartitionLease, resolve: (offset: string) => void) => Promise<void>;

/** One partition's fetched batch, chunk by chunk; each chunk's offsets are committed once it is applied. */
async function runBatch(payload: EachBatchPayload, o: { maxBatch: number; tracker: LagTracker; stopping(): boolean; applyChunk: ApplyChunk }): Promise<void> {
  const { batch, resolveOffset, heartbeat, commitOffsetsIfNecessary, isRunning, isStale } = payload;
  const { partition, messages } = batch;
  o.tracker.observe(partition, { end: Number(batch.highWatermark) });
  const lease = partitionLease({ partition, stopping: o.stopping, isRunning, isStale, heartbeat });
  const resolve = (offset: string) => {
    resolveOffset(offset);
    o.tracker.observe(partition, { position: Number(offset) + 1 });
  };
  try {
    for (let i = 0; i < messages.length && lease.keepGoing(); i += o.maxBatch) {
      const chunk = messages.slice(i, i + o.maxBatch);
      await o.applyChunk(chunk, lease, resolve);
      resolve(chunk[chunk.length - 1]!.offset); // invalid messages at the end of the chunk included
      await commitOffsetsIfNecessary();
      await heartbeat();
    }
  } catch (err) {
    // Stopping or rebalanced away: what is resolved is committed, the rest is redelivered.
    if (!(err instanceof StoppedError)) throw err;
  }
}

/** Parses a chunk (invalid messages dead-lettered at once) and applies the rest, bisecting failures. */
function chunkApplier<T>(
  options: BatchConsumerOptions<T>,
  o: { metrics: ConsumerMetrics; deadLetter: DeadLetter; backoffMs(attempt: number): number },
): ApplyChunk {
  const { logger } = options;
  return async (chunk, lease, resolve) => {
    const valid: BatchItem<T>[] = [];
    for (const message of chunk) {
      const parsed = options.parse(message);
      if (isInvalid(parsed)) await o.deadLetter(message, parsed.invalid, 1, lease);
      else valid.push({ value: parsed, message });
    }
    await applyBisecting(valid, {
      async apply(items) {
        await options.apply(items, lease);
        o.metrics.batchSize.observe(items.length);
      },
      isOutage: options.isOutage,
      deadLetter: (item, reason, attempts) => o.deadLetter(item.message, reason, attempts, lease),
      reason: options.reason ?? failureReason,
      maxAttempts: options.maxAttempts ?? 3,
      backoffMs: o.backoffMs,
      sleep: lease.pause,
      keepGoing: lease.keepGoing,
      onApplied: (items) => resolve(items[items.length - 1]!.message.offset),
      onRetry(kind) {
        o.metrics.retries.inc({ kind });
        if (kind !== 'outage') logger.warn({ partition: lease.partition, kind }, 'applying a chunk failed; retrying');
      },
    });
  };
}
