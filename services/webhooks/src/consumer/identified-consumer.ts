// The consumer group on visitors.identified: each identification becomes one visitor.identified
// delivery per subscribed, enabled endpoint, with the person's details from enrichment. Only the
// schedule is written here; sending is the dispatcher's. Enrichment unreachable: the handler throws
// and the message is not committed, so it comes back.
import type { Kafka } from 'kafkajs';
import { Counter, type Registry } from 'prom-client';
import type { Db } from '@glimpse/db';
import type { Logger } from '@glimpse/logging';
import { TOPICS, createConsumerRunner, visitorIdentifiedSchema, type BatchingProducer } from '@glimpse/messaging';
import { enqueueEffect, hasSubscribers, personKeyOf } from '../data/delivery-repository.js';
import { scheduleIdentified, type IdentifiedDeliveryStore, type PersonDirectory } from '../domain/schedule-identified.js';

export interface IdentifiedConsumerOptions {
  kafka: Kafka;
  groupId: string;
  sessionTimeoutMs?: number;
  logger: Logger;
  registry: Registry;
  db: Db;
  producer: BatchingProducer;
  persons: PersonDirectory;
  retryWindowMs: number;
  onScheduled?(): void;
}

export function createIdentifiedConsumer({ kafka, groupId, sessionTimeoutMs, logger, registry, db, producer, persons, retryWindowMs, onScheduled }: IdentifiedConsumerOptions) {
  const scheduled = new Counter({ name: 'glimpse_webhook_identified_scheduled_total', help: 'Deliveries scheduled from identified visitors', registers: [registry] });
  const store: IdentifiedDeliveryStore = {
    hasSubscribers: (accountId, type) => hasSubscribers(db, accountId, type),
    enqueue: ({ accountId, eventId, email, type, payload }) =>
      enqueueEffect(db, { accountId, effectId: eventId, personKey: personKeyOf(accountId, email), type, payload }, retryWindowMs),
  };
  return createConsumerRunner({
    kafka,
    groupId,
    topic: TOPICS.visitorsIdentified,
    schema: visitorIdentifiedSchema,
    logger,
    partitionsConsumedConcurrently: 3,
    sessionTimeoutMs,
    // Like effects: identifications from before any endpoint existed are not anyone's to deliver.
    fromBeginning: false,
    deadLetter: { topic: TOPICS.webhooksDeadLetter, producer },
    async handle(message) {
      const added = await scheduleIdentified(message, { store, persons });
      if (added > 0) {
        scheduled.inc(added);
        onScheduled?.();
      }
    },
  });
}
