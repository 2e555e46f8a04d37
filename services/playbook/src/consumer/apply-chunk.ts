// One chunk of events.inbound, as the batch consumer hands it over: applied in one transaction
// (the batch apply), counted by outcome, the catalog fold nudged, and the new effects published
// and marked published, a failed publish retried until done (the transaction has committed: a
// redelivery would change nothing and only re-publish). Its parts are passed in, so it runs without
// Kafka or Postgres in a unit test.
import type { Counter } from 'prom-client';
import type { BatchItem, InboundEvent, PartitionLease, UntilDone } from '@glimpse/messaging';
import type { BatchOutcome } from '../domain/apply-batch.js';
import type { EffectRecord } from '../domain/batch-store.js';

export interface ChunkApplierParts {
  /** The batch apply (domain/apply-batch.ts bound to its store). */
  apply(events: InboundEvent[], now: Date): Promise<BatchOutcome>;
  processed: Pick<Counter<'outcome'>, 'inc'>;
  /** Asks the catalog folder for a fold (new names and counts wait in event_name_deltas until then). */
  kickFold(): void;
  /** Sends the effects to playbook.effects and marks them published. */
  publish(effects: EffectRecord[]): Promise<void>;
  untilDone: UntilDone;
  now?: () => Date;
}

/** The outcomes of a chunk as glimpse_events_processed_total counts them (an outcome with none is not incremented). */
export function countOutcome(processed: Pick<Counter<'outcome'>, 'inc'>, outcome: BatchOutcome): void {
  const counts: [string, number][] = [
    ['applied', outcome.applied],
    ['duplicate', outcome.duplicates],
    ['deleted_account', outcome.deletedAccount],
    ['erased', outcome.erased],
  ];
  for (const [label, n] of counts) if (n) processed.inc({ outcome: label }, n);
}

export function createChunkApplier(parts: ChunkApplierParts): (items: BatchItem<InboundEvent>[], lease: PartitionLease) => Promise<void> {
  const now = parts.now ?? (() => new Date());
  return async (items, lease) => {
    const outcome = await parts.apply(
      items.map((i) => i.value),
      now(),
    );
    countOutcome(parts.processed, outcome);
    if (outcome.applied) parts.kickFold();
    if (outcome.effects.length === 0) return;
    // Committed: from here on only publishing is left, retried until done (a redelivery would publish the rest).
    await parts.untilDone(() => parts.publish(outcome.effects), lease);
  };
}
