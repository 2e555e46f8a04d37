// The consumer group on events.inbound, a batch at a time: each partition's fetched batch is cut
// into chunks of at most `maxBatch` messages; a chunk is applied in one transaction (applyBatch),
// its effects published with one producer batch and marked published with one statement, and only
// then its offsets resolved and committed. A crash anywhere before that redelivers the chunk, which
// then changes nothing and re-publishes what was not published.
//
// Failures are bounded (see bisect.ts): a chunk that fails while Postgres answers is split until
// the failing message is alone, which goes to events.inbound.dlq with its reason after
// `maxAttempts`; the partition moves on. An outage is waited out, never dead-lettered. Messages
// that are not valid events go to the dead-letter topic at once. The lag per partition and whether
// the consumer is stuck (behind, with no progress for `stuckAfterMs`) are on /metrics and /readyz.
import type { Consumer, Kafka, KafkaMessage } from 'kafkajs';
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { Db } from '@glimpse/db';
import { dependencyFailure } from '@glimpse/errors';
import type { Logger } from '@glimpse/logging';
import { TOPICS, inboundEventSchema, type BatchingProducer, type InboundEvent } from '@glimpse/messaging';
import { applyBatch, cachedAccounts, foldCatalog, markEffectsPublished, type AccountsCheck, type EffectRecord } from '../data/batch-repository.js';
import { sendEffects } from '../data/effects-outbox.js';
import { applyBisecting, backoff, StoppedError } from './bisect.js';
import { LagTracker, type PartitionLag } from './lag-tracker.js';

export interface InboundEventsConsumerOptions {
  kafka: Kafka;
  db: Db;
  producer: BatchingProducer;
  groupId: string;
  /** Partitions applied at the same time by this process. */
  concurrency: number;
  sessionTimeoutMs?: number;
  logger: Logger;
  registry: Registry;
  /** Most messages applied in one transaction. */
  maxBatch?: number;
  /** Attempts of one failing message before it is dead-lettered. */
  maxAttempts?: number;
  retryBackoffMs?: number;
  retryBackoffMaxMs?: number;
  /** Behind and without progress this long: stuck (unready). */
  stuckAfterMs?: number;
  /** How often the broker is asked for end and committed offsets. */
  lagPollMs?: number;
  /** Which accounts are deleted (by default cachedAccounts(db)); shared with the accounts consumer, which forgets deleted ones. */
  accounts?: AccountsCheck;
}

export interface InboundEventsConsumer {
  start(): Promise<void>;
  /** Leaves the group cleanly: the chunk in hand is finished and committed first. */
  stop(): Promise<void>;
  isRunning(): boolean;
  lags(): PartitionLag[];
  stuck(): PartitionLag[];
  consumer: Consumer;
}

interface Parsed {
  event: InboundEvent;
  message: KafkaMessage;
}

function parse(message: KafkaMessage): InboundEvent | { invalid: string } {
  try {
    const parsed = inboundEventSchema.safeParse(JSON.parse(message.value?.toString('utf8') ?? ''));
    return parsed.success ? parsed.data : { invalid: parsed.error.issues.map((i) => i.path.join('.') + ': ' + i.message).join('; ') };
  } catch {
    return { invalid: 'not JSON' };
  }
}

/** A dead-letter reason made of names and codes only: a driver's message can quote the values. */
export function failureReason(err: unknown): string {
  const parts: string[] = [];
  let e: unknown = err;
  for (let depth = 0; depth < 4 && e && typeof e === 'object'; depth++) {
    const x = e as { name?: unknown; code?: unknown; meta?: { code?: unknown; driverAdapterError?: { cause?: { kind?: unknown; originalCode?: unknown; code?: unknown } } }; cause?: unknown };
    if (typeof x.name === 'string' && x.name !== 'Error') parts.push(x.name);
    if (typeof x.code === 'string' || typeof x.code === 'number') parts.push(String(x.code));
    const adapter = x.meta?.driverAdapterError?.cause;
    const sqlState = adapter?.originalCode ?? adapter?.code ?? x.meta?.code;
    if (typeof adapter?.kind === 'string') parts.push(adapter.kind);
    if (typeof sqlState === 'string') parts.push(`sqlstate ${sqlState}`);
    e = x.cause;
  }
  const reason = [...new Set(parts)].filter((p) => /^[A-Za-z0-9 _.-]{1,60}$/.test(p)).join(' ');
  return `apply failed: ${reason || 'unknown error'}`;
}


const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms).unref());

/** A partition's batch in hand: whether to go on (not stopping, not rebalanced away), and a pause that heartbeats. */
interface Turn {
  keepGoing(): boolean;
  pause(ms: number): Promise<void>;
}

/**
 * Folds the catalog changes of applied batches into event_names: after a batch (at most one fold
 * in flight per process, one more queued) and every `everyMs`, for what another replica's fold
 * skipped. A failed fold is retried by the next one; the changes wait in event_name_deltas.
 */
function catalogFolder(db: Db, logger: Logger, everyMs = 1000) {
  let running: Promise<void> | undefined;
  let again = false;
  const run = (): void => {
    if (running) {
      again = true;
      return;
    }
    running = foldCatalog(db)
      .then(
        () => undefined,
        (err: unknown) => logger.warn({ err: (err as Error).message?.slice(0, 200) }, 'catalog fold failed; the next one retries'),
      )
      .finally(() => {
        running = undefined;
        if (again) {
          again = false;
          run();
        }
      });
  };
  const timer = setInterval(run, everyMs);
  timer.unref();
  return {
    kick: run,
    async stop() {
      clearInterval(timer);
      again = false;
      await running;
      // What this process applied last is folded before it goes.
      await foldCatalog(db).catch(() => undefined);
    },
  };
}

export function createInboundEventsConsumer(options: InboundEventsConsumerOptions): InboundEventsConsumer {
  const { kafka, db, producer, groupId, logger, registry } = options;
  const maxBatch = options.maxBatch ?? 1000;
  const maxAttempts = options.maxAttempts ?? 3;
  const retryBackoff = backoff(options.retryBackoffMs ?? 200, options.retryBackoffMaxMs ?? 5000);
  const topic = TOPICS.eventsInbound;
  const sessionTimeout = options.sessionTimeoutMs ?? 15_000;
  const heartbeatInterval = Math.min(3000, Math.floor(sessionTimeout / 3));
  const consumer = kafka.consumer({ groupId, sessionTimeout, heartbeatInterval, retry: { retries: 5 } });
  const admin = kafka.admin({ retry: { retries: 0 } });
  const tracker = new LagTracker(options.stuckAfterMs ?? 60_000);
  const accounts = options.accounts ?? cachedAccounts(db);
  const folder = catalogFolder(db, logger);
  let running = false;
  let stopping = false;
  let poller: NodeJS.Timeout | undefined;

  const processed = new Counter({ name: 'glimpse_events_processed_total', help: 'Inbound events handled by the playbook service, by outcome', labelNames: ['outcome'] as const, registers: [registry] });
  const retries = new Counter({
    name: 'glimpse_consumer_retries_total',
    help: 'Failed applies of the consumer: outage (Postgres not answering, retried whole), split (a failing chunk bisected), failure (one message retried), publish (effects or dead letters not yet sent)',
    labelNames: ['kind'] as const,
    registers: [registry],
  });
  const batchSize = new Histogram({ name: 'glimpse_consumer_batch_size', help: 'Messages per applied chunk', buckets: [1, 10, 50, 100, 250, 500, 1000, 2500], registers: [registry] });
  new Gauge({
    name: 'glimpse_consumer_lag',
    help: 'Messages behind on each partition this replica holds (end offset − next offset to apply)',
    labelNames: ['partition'] as const,
    registers: [registry],
    collect() {
      this.reset();
      for (const l of tracker.lags()) this.set({ partition: String(l.partition) }, l.lag);
    },
  });
  new Gauge({
    name: 'glimpse_consumer_seconds_since_progress',
    help: 'Seconds since the partition last moved (or was assigned)',
    labelNames: ['partition'] as const,
    registers: [registry],
    collect() {
      this.reset();
      for (const l of tracker.lags()) this.set({ partition: String(l.partition) }, Math.round(l.sinceProgressMs / 100) / 10);
    },
  });
  new Gauge({
    name: 'glimpse_consumer_stuck_partitions',
    help: 'Partitions behind with no progress for longer than PLAYBOOK_STUCK_AFTER_MS (the replica is unready while > 0)',
    registers: [registry],
    collect() {
      this.set(tracker.stuck().length);
    },
  });

  consumer.on(consumer.events.CRASH, (e) => {
    logger.error({ err: e.payload.error, restart: e.payload.restart }, 'consumer crashed');
    running = e.payload.restart;
  });
  consumer.on(consumer.events.GROUP_JOIN, (e) => {
    tracker.assign(e.payload.memberAssignment[topic] ?? []);
  });

  async function pollLag(): Promise<void> {
    try {
      await admin.connect();
      const [ends, committed] = await Promise.all([admin.fetchTopicOffsets(topic), admin.fetchOffsets({ groupId, topics: [topic] })]);
      const low = new Map(ends.map((p) => [p.partition, Number(p.low)]));
      for (const p of ends) tracker.observe(p.partition, { end: Number(p.high) });
      for (const p of committed[0]?.partitions ?? []) {
        const at = Number(p.offset);
        tracker.observe(p.partition, { position: at >= 0 ? at : (low.get(p.partition) ?? 0) });
      }
    } catch (err) {
      logger.debug({ err: (err as Error).message }, 'lag poll failed');
    }
  }

  /** Tries `what` until it succeeds or the partition is no longer ours: Kafka or Postgres down never fails a chunk. */
  async function untilDone(what: () => Promise<void>, turn: Turn): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await what();
      } catch (err) {
        retries.inc({ kind: 'publish' });
        if (!turn.keepGoing()) throw new StoppedError();
        if (attempt === 1 || attempt % 10 === 0) logger.warn({ err: (err as Error).message?.slice(0, 200), attempt }, 'publishing failed; retrying');
        await turn.pause(retryBackoff(attempt));
      }
    }
  }

  async function publish(effects: EffectRecord[], turn: Turn): Promise<void> {
    if (effects.length === 0) return;
    await untilDone(async () => {
      await sendEffects(producer, effects);
      await markEffectsPublished(db, effects.map((e) => e.id));
    }, turn);
  }

  async function deadLetter(partition: number, message: KafkaMessage, reason: string, attempts: number, turn: Turn): Promise<void> {
    logger.warn({ topic, partition, offset: message.offset, reason, attempts }, 'message sent to dead-letter topic');
    await untilDone(
      () =>
        producer.send(TOPICS.eventsDeadLetter, {
          key: message.key,
          value: message.value,
          headers: { 'x-source-topic': topic, 'x-source-partition': String(partition), 'x-source-offset': message.offset, 'x-reason': reason, 'x-attempts': String(attempts) },
        }),
      turn,
    );
    processed.inc({ outcome: 'dead_letter' });
  }

  async function postgresAnswers(): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([db.$queryRawUnsafe('SELECT 1'), new Promise((_, reject) => (timer = setTimeout(() => reject(new Error('timeout')), 2000)))]);
      return true;
    } catch {
      return false;
    } finally {
      clearTimeout(timer);
    }
  }

  async function applyChunk(partition: number, chunk: KafkaMessage[], turn: Turn, resolve: (offset: string) => void): Promise<void> {
    const valid: Parsed[] = [];
    for (const message of chunk) {
      const parsed = parse(message);
      if ('invalid' in parsed) await deadLetter(partition, message, parsed.invalid, 1, turn);
      else valid.push({ event: parsed, message });
    }
    await applyBisecting(valid, {
      async apply(items) {
        const outcome = await applyBatch(db, items.map((i) => i.event), accounts);
        batchSize.observe(items.length);
        if (outcome.applied) processed.inc({ outcome: 'applied' }, outcome.applied);
        if (outcome.duplicates) processed.inc({ outcome: 'duplicate' }, outcome.duplicates);
        if (outcome.deletedAccount) processed.inc({ outcome: 'deleted_account' }, outcome.deletedAccount);
        if (outcome.erased) processed.inc({ outcome: 'erased' }, outcome.erased);
        if (outcome.applied) folder.kick();
        // Committed: from here on only publishing is left, retried until done (a redelivery would publish the rest).
        await publish(outcome.effects, turn);
      },
      // Postgres down, timing out or not answering now: not the messages' fault.
      isOutage: async (err) => dependencyFailure(err) !== null || (err as { code?: unknown }).code === 'P2028' || !(await postgresAnswers()),
      deadLetter: (item, reason, attempts) => deadLetter(partition, item.message, reason, attempts, turn),
      reason: failureReason,
      maxAttempts,
      backoffMs: retryBackoff,
      sleep: turn.pause,
      keepGoing: turn.keepGoing,
      onApplied(items) {
        resolve(items[items.length - 1]!.message.offset);
      },
      onRetry(kind) {
        retries.inc({ kind });
        if (kind !== 'outage') logger.warn({ partition, kind }, 'applying a chunk failed; retrying');
      },
    });
  }

  return {
    consumer,
    async start() {
      stopping = false;
      await consumer.connect();
      await consumer.subscribe({ topic, fromBeginning: true });
      await consumer.run({
        partitionsConsumedConcurrently: options.concurrency,
        eachBatchAutoResolve: false,
        eachBatch: async ({ batch, resolveOffset, heartbeat, commitOffsetsIfNecessary, isRunning, isStale }) => {
          const { partition, messages } = batch;
          tracker.observe(partition, { end: Number(batch.highWatermark) });
          const keepGoing = () => !stopping && isRunning() && !isStale();
          // Waits between retries heartbeat, so a long outage does not cost the group membership.
          const turn: Turn = {
            keepGoing,
            async pause(ms) {
              await sleep(ms);
              await heartbeat().catch(() => undefined);
            },
          };
          const resolve = (offset: string) => {
            resolveOffset(offset);
            tracker.observe(partition, { position: Number(offset) + 1 });
          };
          try {
            for (let i = 0; i < messages.length && keepGoing(); i += maxBatch) {
              const chunk = messages.slice(i, i + maxBatch);
              await applyChunk(partition, chunk, turn, resolve);
              resolve(chunk[chunk.length - 1]!.offset); // invalid messages at the end of the chunk included
              await commitOffsetsIfNecessary();
              await heartbeat();
            }
          } catch (err) {
            // Stopping or rebalanced away: what is resolved is committed, the rest is redelivered.
            if (!(err instanceof StoppedError)) throw err;
          }
        },
      });
      running = true;
      poller = setInterval(() => void pollLag(), options.lagPollMs ?? 5000);
      poller.unref();
      void pollLag();
    },
    async stop() {
      stopping = true;
      running = false;
      if (poller) clearInterval(poller);
      await consumer.disconnect();
      await folder.stop();
      await admin.disconnect().catch(() => undefined);
    },
    isRunning: () => running,
    lags: () => tracker.lags(),
    stuck: () => tracker.stuck(),
  };
}
