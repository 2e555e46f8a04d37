// The consumer group on playbook.effects: each effect becomes one scheduled delivery per enabled
// endpoint subscribed to its type. Only the schedule is written here; sending is the
// dispatcher's, so a slow or failing endpoint never holds up a partition.
import type { Kafka } from 'kafkajs';
import { Counter, type Registry } from 'prom-client';
import type { Db } from '@glimpse/db';
import type { Logger } from '@glimpse/logging';
import { TOPICS, createConsumerRunner, playbookEffectSchema, type BatchingProducer } from '@glimpse/messaging';
import { enqueueEffect, personKeyOf } from '../data/delivery-repository.js';
import { eventTypeOf, payloadOf } from '../domain/effect-payload.js';

export interface EffectsConsumerOptions {
  kafka: Kafka;
  groupId: string;
  sessionTimeoutMs?: number;
  logger: Logger;
  registry: Registry;
  db: Db;
  producer: BatchingProducer;
  retryWindowMs: number;
  /** Called after deliveries were scheduled, so the dispatcher can look at once. */
  onScheduled?(): void;
}

export function createEffectsConsumer({ kafka, groupId, sessionTimeoutMs, logger, registry, db, producer, retryWindowMs, onScheduled }: EffectsConsumerOptions) {
  const scheduled = new Counter({ name: 'glimpse_webhook_deliveries_scheduled_total', help: 'Deliveries scheduled from playbook effects', registers: [registry] });
  return createConsumerRunner({
    kafka,
    groupId,
    topic: TOPICS.playbookEffects,
    schema: playbookEffectSchema,
    logger,
    partitionsConsumedConcurrently: 3,
    sessionTimeoutMs,
    // A new group starts at the end: effects from before any endpoint existed are not anyone's to deliver.
    fromBeginning: false,
    // The webhooks service's own dead-letter topic: its Kafka user may write no other service's.
    deadLetter: { topic: TOPICS.webhooksDeadLetter, producer },
    async handle(effect) {
      const added = await enqueueEffect(
        db,
        {
          accountId: effect.accountId,
          effectId: effect.effectId,
          personKey: personKeyOf(effect.accountId, effect.email),
          type: eventTypeOf(effect),
          payload: JSON.stringify(payloadOf(effect)),
        },
        retryWindowMs,
      );
      if (added > 0) {
        scheduled.inc(added);
        onScheduled?.();
      }
    },
  });
}
