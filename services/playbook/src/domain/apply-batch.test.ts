// The batch apply's order of checks, against an in-memory store: no database, no Kafka.
import { applyBatch, type InboundEventFields } from './apply-batch';
import type { BatchStore, BatchTransaction, EffectRecord, PlanState } from './batch-store';
import { pairKey, type BatchPlan } from './plan-batch';

const LIVE = 'acc-live';
const GONE = 'acc-deleted';
const NOW = new Date('2026-01-01T00:10:00.000Z');
const ERASED_AT = Date.parse('2026-01-01T00:05:00.000Z');

const ev = (eventId: string, o: Partial<InboundEventFields> = {}): InboundEventFields => ({
  eventId,
  accountId: LIVE,
  email: 'a@example.com',
  event: 'signed_up',
  receivedAt: '2026-01-01T00:06:00.000Z',
  ...o,
});

/** Fake store: `seen` ids are already processed; `erased` pairs were erased at ERASED_AT; signed_up triggers playbook pb1. */
function fakeStore({ seen = [] as string[], erased = [] as string[], unpublished = [] as EffectRecord[] } = {}) {
  const writes: BatchPlan[] = [];
  const claimed: string[][] = [];
  const tx: BatchTransaction = {
    async claimNew(events) {
      claimed.push(events.map((e) => e.eventId));
      const fresh = new Set<string>();
      for (const e of events) {
        if (seen.includes(e.eventId)) continue;
        fresh.add(e.eventId);
        seen.push(e.eventId);
      }
      return fresh;
    },
    async planState(events): Promise<PlanState> {
      const optedIn = new Map(events.map((e) => [pairKey(e.accountId, 'signed_up'), { triggers: ['pb1'], exits: [] }]));
      return { optedIn, policies: new Map(), active: [], enrolledBefore: [], suppressed: new Set() };
    },
    async write(plan) {
      writes.push(plan);
    },
  };
  const store: BatchStore = {
    async erasedAt(pairs) {
      return new Map(pairs.filter((p) => erased.includes(p.emailHash)).map((p) => [pairKey(p.accountId, p.emailHash), ERASED_AT]));
    },
    transaction: (work) => work(tx),
    async unpublishedEffects(eventIds) {
      return unpublished.filter((e) => eventIds.includes(e.eventId));
    },
  };
  return { store, writes, claimed };
}

const deps = (store: BatchStore) => ({
  store,
  accounts: { known: async (ids: string[]) => new Set(ids.filter((id) => id !== GONE)) },
  erasedEmail: (accountId: string, email: string) => `hash:${accountId}:${email}`,
  newId: (() => {
    let n = 0;
    return () => `id${++n}`;
  })(),
});

describe('applyBatch', () => {
  it('when the batch is empty, then nothing is read or written', async () => {
    const { store, claimed } = fakeStore();
    expect(await applyBatch(deps(store), [], NOW)).toEqual({ applied: 0, duplicates: 0, deletedAccount: 0, erased: 0, effects: [] });
    expect(claimed).toEqual([]);
  });

  it('when an event is of a deleted account, then it is counted and neither claimed nor planned', async () => {
    const { store, claimed, writes } = fakeStore();
    const outcome = await applyBatch(deps(store), [ev('e1'), ev('e2', { accountId: GONE })], NOW);
    expect(outcome).toMatchObject({ applied: 1, duplicates: 0, deletedAccount: 1, erased: 0 });
    expect(claimed).toEqual([['e1']]);
    expect(writes[0]!.applied.map((e) => e.eventId)).toEqual(['e1']);
  });

  it('when the person was erased after an event was received, then that event is dropped; one received after the erasure is applied', async () => {
    const { store, claimed } = fakeStore({ erased: [`hash:${LIVE}:gone@example.com`] });
    const before = ev('e1', { email: 'gone@example.com', receivedAt: '2026-01-01T00:04:59.000Z' });
    const atErasure = ev('e2', { email: 'gone@example.com', receivedAt: '2026-01-01T00:05:00.000Z' });
    const after = ev('e3', { email: 'gone@example.com', receivedAt: '2026-01-01T00:05:01.000Z' });
    const outcome = await applyBatch(deps(store), [before, atErasure, after], NOW);
    expect(outcome).toMatchObject({ applied: 1, erased: 2 });
    expect(claimed).toEqual([['e3']]);
  });

  it('when every event is dropped, then no transaction is opened', async () => {
    const { store, claimed } = fakeStore({ erased: [`hash:${LIVE}:a@example.com`] });
    const outcome = await applyBatch(deps(store), [ev('e1', { receivedAt: '2026-01-01T00:01:00.000Z' }), ev('e2', { accountId: GONE })], NOW);
    expect(outcome).toEqual({ applied: 0, duplicates: 0, deletedAccount: 1, erased: 1, effects: [] });
    expect(claimed).toEqual([]);
  });

  it('when new events start a playbook, then the plan is written once and its effects are returned at the batch time', async () => {
    const { store, writes } = fakeStore();
    const outcome = await applyBatch(deps(store), [ev('e1')], NOW);
    expect(writes).toHaveLength(1);
    expect(outcome.effects).toEqual([{ id: 'id2', eventId: 'e1', accountId: LIVE, playbookId: 'pb1', email: 'a@example.com', action: 'started', at: NOW }]);
  });

  it('when a batch is redelivered, then nothing is written and the unpublished effects of its events are returned', async () => {
    const pending: EffectRecord = {
      id: 'f1',
      eventId: 'e1',
      accountId: LIVE,
      playbookId: 'pb1',
      email: 'a@example.com',
      action: 'started',
      at: NOW,
      cause: null,
    };
    const { store, writes } = fakeStore({ seen: ['e1'], unpublished: [pending] });
    const outcome = await applyBatch(deps(store), [ev('e1'), ev('e1')], NOW);
    expect(outcome).toEqual({ applied: 0, duplicates: 2, deletedAccount: 0, erased: 0, effects: [pending] });
    expect(writes).toEqual([]);
  });
});
