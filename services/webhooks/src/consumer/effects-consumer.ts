// The consumer group on playbook.effects: each effect becomes one scheduled delivery per enabled
// endpoint subscribed to its type. Only the schedule is written here; sending is the
// dispatcher's, so a slow or failing endpoint never holds up a partition.
import { TOPICS, playbookEffectSchema } from '@glimpse/messaging';
import { personKeyOf } from '../data/delivery-repository.js';
import { eventTypeOf, payloadOf } from '../domain/effect-payload.js';
import { createEnqueueingConsumer, type SchedulingConsumerOptions } from './scheduling-consumer.js';

export type EffectsConsumerOptions = SchedulingConsumerOptions;

export function createEffectsConsumer(options: EffectsConsumerOptions) {
  return createEnqueueingConsumer(options, {
    topic: TOPICS.playbookEffects,
    schema: playbookEffectSchema,
    metric: { name: 'glimpse_webhook_deliveries_scheduled_total', help: 'Deliveries scheduled from playbook effects' },
    effectOf: (effect) => ({
      accountId: effect.accountId,
      effectId: effect.effectId,
      personKey: personKeyOf(effect.accountId, effect.email),
      type: eventTypeOf(effect),
      payload: JSON.stringify(payloadOf(effect)),
    }),
  });
}
