// The playbook service's use case for one inbound event: apply it once, then publish its effects.
// Publishing happens after commit and is retried through redelivery: a duplicate event re-publishes
// whatever effects of it are still unpublished, so an effect is published at least once.
import type { Db } from '@glimpse/db';
import { TOPICS, personKey, type BatchingProducer, type InboundEvent, type PlaybookEffectMessage } from '@glimpse/messaging';
import { applyEventInTransaction, markPublished, type AccountCheck, type EffectRecord } from '../data/event-effects-repository.js';

export interface ApplyEventDeps {
  db: Db;
  producer: BatchingProducer;
  accounts?: AccountCheck;
}

export type ApplyEventResult = 'applied' | 'duplicate' | 'unknown_account';

function toMessage(e: EffectRecord): PlaybookEffectMessage {
  return {
    effectId: e.id,
    eventId: e.eventId,
    accountId: e.accountId,
    playbookId: e.playbookId,
    email: e.email,
    action: e.action as PlaybookEffectMessage['action'],
    at: e.at.toISOString(),
  };
}

export async function applyEvent({ db, producer, accounts }: ApplyEventDeps, event: InboundEvent): Promise<ApplyEventResult> {
  const outcome = await applyEventInTransaction(db, event, accounts);
  if (outcome.kind === 'unknown_account') return outcome.kind;
  const effects = outcome.kind === 'applied' ? outcome.effects : outcome.unpublished;
  await Promise.all(
    effects.map((e) => producer.send(TOPICS.playbookEffects, { key: personKey(e.accountId, e.email), value: JSON.stringify(toMessage(e)) })),
  );
  await markPublished(db, effects.map((e) => e.id));
  return outcome.kind;
}
