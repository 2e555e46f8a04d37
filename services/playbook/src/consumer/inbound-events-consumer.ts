// The consumer group on events.inbound: the shared batch consumer (createBatchConsumer in
// @glimpse/messaging: chunks, bisecting, dead letters, lag and stuck detection) applying inbound
// events. A chunk is applied in one transaction (applyBatch), its effects published with one
// producer batch and marked published with one statement, and only then its offsets committed. A
// crash anywhere before that redelivers the chunk, which then changes nothing and re-publishes what
// was not published. Invalid events and messages that fail alone go to events.inbound.dlq.
// The parts, each in its own module and unit-tested without Kafka: parse-inbound-event.ts (the
// message), apply-chunk.ts (apply, count, fold, publish), publish-effects.ts, postgres-outage.ts,
// catalog-folder.ts; the batch consumer's own (chunks, bisecting, dead letters, metrics, lag
// poller) are @glimpse/messaging's.
import { postgresProbe } from '@glimpse/db';
import type { Db } from '@glimpse/db/playbook';
import {
  TOPICS,
  createBatchConsumer,
  createProcessedCounter,
  outageCheck,
  type BatchConsumer,
  type BatchConsumerSettings,
  type InboundEvent,
} from '@glimpse/messaging';
import { cachedAccounts, createBatchStore, foldCatalog, markEffectsPublished } from '../data/batch-store.js';
import { sendEffects } from '../data/effects-outbox.js';
import { applyBatch } from '../domain/apply-batch.js';
import type { AccountsCheck, ErasedEmail } from '../domain/batch-store.js';
import { createChunkApplier } from './apply-chunk.js';
import { catalogFolder } from './catalog-folder.js';
import { parseInboundEvent } from './parse-inbound-event.js';
import { knownPostgresOutage } from './postgres-outage.js';
import { effectsPublisher } from './publish-effects.js';

export { parseInboundEvent };

/** The batch consumer's settings (passed through to it), and what applying inbound events needs. */
export interface InboundEventsConsumerOptions extends BatchConsumerSettings {
  db: Db;
  /** Which accounts are deleted (by default cachedAccounts(db)); shared with the accounts consumer, which forgets deleted ones. */
  accounts?: AccountsCheck;
  /** The stand-in of an erased email (events of a person erased after they were received are dropped). */
  erasedEmail: ErasedEmail;
  /** Names an account's catalog holds at most (CATALOG_NAMES_PER_ACCOUNT); a later new name is applied, not catalogued. */
  catalogNamesPerAccount?: number;
}

/** The batch consumer as the service runs it (its untilDone stays inside: the chunk applier has it). */
export type InboundEventsConsumer = Omit<BatchConsumer, 'untilDone'>;

export function createInboundEventsConsumer(options: InboundEventsConsumerOptions): InboundEventsConsumer {
  const { db, producer, logger, registry, erasedEmail } = options;
  const accounts = options.accounts ?? cachedAccounts(db);
  const store = createBatchStore(db);
  const folder = catalogFolder(() => foldCatalog(db, { maxNames: options.catalogNamesPerAccount }), logger);
  const processed = createProcessedCounter(registry, 'glimpse_events_processed_total', 'Inbound events handled by the playbook service, by outcome');
  const batch = createBatchConsumer<InboundEvent>({
    ...options,
    topic: TOPICS.eventsInbound,
    deadLetterTopic: TOPICS.eventsDeadLetter,
    processed,
    stuckSetting: 'PLAYBOOK_STUCK_AFTER_MS',
    parse: parseInboundEvent,
    // applyChunk retries its publish with the consumer's untilDone, so it is made just below.
    apply: (items, lease) => applyChunk(items, lease),
    // Postgres down, timing out or not answering now: not the messages' fault.
    isOutage: outageCheck({ known: knownPostgresOutage, probe: postgresProbe(db) }),
    onStop: () => folder.stop(),
  });
  const applyChunk = createChunkApplier({
    apply: (events, now) => applyBatch({ store, accounts, erasedEmail }, events, now),
    processed,
    kickFold: folder.kick,
    publish: effectsPublisher({ send: (effects) => sendEffects(producer, effects), markPublished: (ids) => markEffectsPublished(db, ids) }),
    untilDone: batch.untilDone,
  });
  return batch;
}
