// A committed chunk's effects: sent to playbook.effects as one producer batch, then marked published
// with one statement. Marked only once every send is acknowledged: an effect left unmarked is sent
// again (by a redelivery or the sweeper), never lost; receivers dedupe by effectId.
import type { EffectRecord } from '../domain/batch-store.js';

export interface PublishParts {
  send(effects: readonly EffectRecord[]): Promise<void>;
  markPublished(effectIds: string[]): Promise<void>;
}

export function effectsPublisher({ send, markPublished }: PublishParts): (effects: EffectRecord[]) => Promise<void> {
  return async (effects) => {
    await send(effects);
    await markPublished(effects.map((e) => e.id));
  };
}
