// The consumer group on visitors.identified: each identification becomes one visitor.identified
// delivery per subscribed, enabled endpoint, with the person's details from enrichment. Only the
// schedule is written here; sending is the dispatcher's. Enrichment unreachable: the handler throws
// and the message is not committed, so it comes back.
import { TOPICS, visitorIdentifiedSchema } from '@glimpse/messaging';
import { enqueueEffect, hasSubscribers, personKeyOf } from '../data/delivery-repository.js';
import { scheduleIdentified, type IdentifiedDeliveryStore, type PersonDirectory } from '../domain/schedule-identified.js';
import { createSchedulingConsumer, type SchedulingConsumerOptions } from './scheduling-consumer.js';

export interface IdentifiedConsumerOptions extends SchedulingConsumerOptions {
  persons: PersonDirectory;
}

export function createIdentifiedConsumer({ persons, ...options }: IdentifiedConsumerOptions) {
  const { db, retryWindowMs } = options;
  /** The store for one message: its deliveries go to the endpoints that existed when it was published. */
  const storeAt = (publishedAt: Date): IdentifiedDeliveryStore => ({
    hasSubscribers: (accountId, type) => hasSubscribers(db, accountId, type),
    enqueue: ({ accountId, eventId, email, type, payload }) =>
      enqueueEffect(db, { accountId, effectId: eventId, personKey: personKeyOf(accountId, email), type, payload, publishedAt }, retryWindowMs),
  });
  return createSchedulingConsumer(options, {
    topic: TOPICS.visitorsIdentified,
    schema: visitorIdentifiedSchema,
    metric: { name: 'glimpse_webhook_identified_scheduled_total', help: 'Deliveries scheduled from identified visitors' },
    schedule: (message, publishedAt) => scheduleIdentified(message, { store: storeAt(publishedAt), persons }),
  });
}
