// The consumer group on events.inbound: the shared batch consumer (createBatchConsumer in
// @glimpse/messaging: chunks, bisecting, dead letters, lag and stuck detection) applying inbound
// events. A chunk is applied in one transaction (applyBatch), its effects published with one
// producer batch and marked published with one statement, and only then its offsets committed. A
// crash anywhere before that redelivers the chunk, which then changes nothing and re-publishes what
// was not published. Invalid events and messages that fail alone go to events.inbound.dlq.
import type { Consumer, Kafka, KafkaMessage } from 'kafkajs';
import type { Registry } from 'prom-client';
import type { Db } from '@glimpse/db';
import { dependencyFailure } from '@glimpse/errors';
import type { Logger } from '@glimpse/logging';
import {
  TOPICS,
  createBatchConsumer,
  createProcessedCounter,
  inboundEventSchema,
  outageCheck,
  type BatchingProducer,
  type InboundEvent,
  type ParseResult,
  type PartitionLag,
} from '@glimpse/messaging';
import { cachedAccounts, createBatchStore, markEffectsPublished } from '../data/batch-store.js';
import { sendEffects } from '../data/effects-outbox.js';
import { applyBatch } from '../domain/apply-batch.js';
import type { AccountsCheck, ErasedEmail } from '../domain/batch-store.js';
import { catalogFolder } from './catalog-folder.js';

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
  /** The stand-in of an erased email (events of a person erased after they were received are dropped). */
  erasedEmail: ErasedEmail;
  /** Names an account's catalog holds at most (CATALOG_NAMES_PER_ACCOUNT); a later new name is applied, not catalogued. */
  catalogNamesPerAccount?: number;
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

export function parseInboundEvent(message: KafkaMessage): ParseResult<InboundEvent> {
  try {
    const parsed = inboundEventSchema.safeParse(JSON.parse(message.value?.toString('utf8') ?? ''));
    return parsed.success ? parsed.data : { invalid: parsed.error.issues.map((i) => i.path.join('.') + ': ' + i.message).join('; ') };
  } catch {
    return { invalid: 'not JSON' };
  }
}

export function createInboundEventsConsumer(options: InboundEventsConsumerOptions): InboundEventsConsumer {
  const { db, producer, logger, registry } = options;
  const accounts = options.accounts ?? cachedAccounts(db);
  const store = createBatchStore(db);
  const folder = catalogFolder(db, logger, { maxNames: options.catalogNamesPerAccount });
  const processed = createProcessedCounter(registry, 'glimpse_events_processed_total', 'Inbound events handled by the playbook service, by outcome');
  const batch = createBatchConsumer<InboundEvent>({
    ...options,
    topic: TOPICS.eventsInbound,
    deadLetterTopic: TOPICS.eventsDeadLetter,
    processed,
    stuckSetting: 'PLAYBOOK_STUCK_AFTER_MS',
    parse: parseInboundEvent,
    async apply(items, turn) {
      const outcome = await applyBatch({ store, accounts, erasedEmail: options.erasedEmail }, items.map((i) => i.value), new Date());
      if (outcome.applied) processed.inc({ outcome: 'applied' }, outcome.applied);
      if (outcome.duplicates) processed.inc({ outcome: 'duplicate' }, outcome.duplicates);
      if (outcome.deletedAccount) processed.inc({ outcome: 'deleted_account' }, outcome.deletedAccount);
      if (outcome.erased) processed.inc({ outcome: 'erased' }, outcome.erased);
      if (outcome.applied) folder.kick();
      if (outcome.effects.length === 0) return;
      // Committed: from here on only publishing is left, retried until done (a redelivery would publish the rest).
      await batch.untilDone(async () => {
        await sendEffects(producer, outcome.effects);
        await markEffectsPublished(db, outcome.effects.map((e) => e.id));
      }, turn);
    },
    // Postgres down, timing out (P2028: a transaction's timeout) or not answering now: not the messages' fault.
    isOutage: outageCheck({
      known: (err) => dependencyFailure(err) !== null || (err as { code?: unknown }).code === 'P2028',
      probe: () => db.$queryRawUnsafe('SELECT 1'),
    }),
    onStop: () => folder.stop(),
  });
  return batch;
}
