import type { BatchItem, InboundEvent, PartitionLease, UntilDone } from '@glimpse/messaging';
import type { BatchOutcome } from '../domain/apply-batch';
import type { EffectRecord } from '../domain/batch-store';
import { countOutcome, createChunkApplier } from './apply-chunk';

const NOW = new Date('2026-01-01T00:00:00.000Z');
const lease: PartitionLease = { partition: 0, keepGoing: () => true, pause: async () => undefined };
const item = (eventId: string): BatchItem<InboundEvent> =>
  ({
    value: { eventId, accountId: 'a1', event: 'signed_up', email: 'a@example.com', properties: {}, receivedAt: NOW.toISOString() },
  }) as unknown as BatchItem<InboundEvent>;
const effect: EffectRecord = { id: 'f1', eventId: 'e1', accountId: 'a1', playbookId: 'p1', email: 'a@example.com', action: 'started', at: NOW };
const outcome = (o: Partial<BatchOutcome>): BatchOutcome => ({ applied: 0, duplicates: 0, deletedAccount: 0, erased: 0, effects: [], ...o });

function counter() {
  const incs: [string, number][] = [];
  return { incs, inc: (labels: { outcome: string }, n: number) => void incs.push([labels.outcome, n]) } as { incs: [string, number][]; inc: never };
}

function applier(result: BatchOutcome, { publish = async () => undefined, untilDone = ((what) => what()) as UntilDone } = {}) {
  const processed = counter();
  const seen = { applied: [] as string[][], at: [] as Date[], kicks: 0, published: [] as EffectRecord[][] };
  const apply = createChunkApplier({
    apply: async (events, now) => {
      seen.applied.push(events.map((e) => e.eventId));
      seen.at.push(now);
      return result;
    },
    processed,
    kickFold: () => void seen.kicks++,
    publish: async (effects) => {
      seen.published.push(effects);
      await publish();
    },
    untilDone,
    now: () => NOW,
  });
  return { apply, processed, seen };
}

describe('countOutcome', () => {
  it('when a chunk has outcomes, then each is counted under its label and none is counted as 0', () => {
    const processed = counter();
    countOutcome(processed, outcome({ applied: 3, duplicates: 0, deletedAccount: 2, erased: 1 }));
    expect(processed.incs).toEqual([
      ['applied', 3],
      ['deleted_account', 2],
      ['erased', 1],
    ]);
  });
});

describe('createChunkApplier', () => {
  it('when a chunk applies events with effects, then it is applied once, counted, the fold kicked and the effects published', async () => {
    const { apply, processed, seen } = applier(outcome({ applied: 2, effects: [effect] }));
    await apply([item('e1'), item('e2')], lease);
    expect(seen.applied).toEqual([['e1', 'e2']]);
    expect(seen.at).toEqual([NOW]);
    expect(processed.incs).toEqual([['applied', 2]]);
    expect(seen.kicks).toBe(1);
    expect(seen.published).toEqual([[effect]]);
  });

  it('when nothing new was applied (all duplicates), then no fold is kicked and there is nothing to publish', async () => {
    const { apply, processed, seen } = applier(outcome({ duplicates: 2 }));
    await apply([item('e1'), item('e1')], lease);
    expect(processed.incs).toEqual([['duplicate', 2]]);
    expect(seen.kicks).toBe(0);
    expect(seen.published).toEqual([]);
  });

  it('when a redelivery returns unpublished effects, then they are published though nothing was applied', async () => {
    const { apply, seen } = applier(outcome({ duplicates: 1, effects: [effect] }));
    await apply([item('e1')], lease);
    expect(seen.kicks).toBe(0);
    expect(seen.published).toEqual([[effect]]);
  });

  it("when the publish fails, then it goes through untilDone with the chunk's partition lease, and is tried again there", async () => {
    let failures = 1;
    const leases: PartitionLease[] = [];
    const retrying: UntilDone = async (what, t) => {
      leases.push(t);
      for (;;) {
        try {
          return await what();
        } catch {
          continue;
        }
      }
    };
    const { apply, seen } = applier(outcome({ applied: 1, effects: [effect] }), {
      publish: async () => {
        if (failures-- > 0) throw new Error('broker down');
      },
      untilDone: retrying,
    });
    await apply([item('e1')], lease);
    expect(leases).toEqual([lease]);
    expect(seen.published).toHaveLength(2);
  });

  it('when the apply fails, then nothing is counted, kicked or published and the failure is passed on (the chunk is retried or bisected)', async () => {
    const processed = counter();
    const published: unknown[] = [];
    const apply = createChunkApplier({
      apply: () => Promise.reject(new Error('deadlock')),
      processed,
      kickFold: () => published.push('kick'),
      publish: async (e) => void published.push(e),
      untilDone: (what) => what(),
    });
    await expect(apply([item('e1')], lease)).rejects.toThrow('deadlock');
    expect(processed.incs).toEqual([]);
    expect(published).toEqual([]);
  });
});
