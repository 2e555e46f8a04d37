import { decideEffects } from './decide-effects';
import { pairKey, planBatch, type ActiveEnrollment, type BatchEvent, type OptedIn } from './plan-batch';

const ACCOUNT = 'acc-1';
let seq = 0;
const ev = (email: string, name: string, eventId = `e${++seq}`, receivedAt = new Date(Date.UTC(2026, 0, 1, 0, 0, seq)).toISOString()): BatchEvent => ({
  eventId,
  accountId: ACCOUNT,
  email,
  name,
  receivedAt,
});

function ids() {
  let n = 0;
  return () => `id${++n}`;
}

// Onboarding: signed_up starts it, purchase stops it. Form reply restarts on form_submitted.
const OPTED: Record<string, OptedIn> = {
  signed_up: { triggers: ['onboarding'], exits: [] },
  purchase: { triggers: [], exits: ['onboarding'] },
  form_submitted: { triggers: ['form'], exits: ['form'] },
};
const optedIn = new Map(Object.entries(OPTED).map(([name, o]) => [pairKey(ACCOUNT, name), o]));

/** The reference: each event applied alone, one after another, through the one-event rule. */
function oneByOne(events: BatchEvent[], active: ActiveEnrollment[]) {
  const state = new Map<string, Set<string>>();
  for (const a of active) state.set(a.email, new Set([...(state.get(a.email) ?? []), a.playbookId]));
  const effects: string[] = [];
  const done = new Set<string>();
  for (const e of events) {
    if (done.has(e.eventId)) continue;
    done.add(e.eventId);
    const o = OPTED[e.name];
    if (!o) continue;
    const held = state.get(e.email) ?? new Set<string>();
    const d = decideEffects({ exitPlaybookIds: o.exits, triggerPlaybookIds: o.triggers, activePlaybookIds: [...held] });
    d.stop.forEach((p) => (held.delete(p), effects.push(`${e.eventId} ${p} stopped`)));
    d.start.forEach((p) => (held.add(p), effects.push(`${e.eventId} ${p} started`)));
    state.set(e.email, held);
  }
  return effects;
}

describe('planBatch: a batch in memory', () => {
  it('when the same person has a trigger then an exit in one batch, then the enrollment is started already stopped, with both effects in order', () => {
    const start = ev('ada@x', 'signed_up');
    const stop = ev('ada@x', 'purchase');
    const plan = planBatch({ events: [start, stop], optedIn, active: [], newId: ids() });

    expect(plan.starts).toEqual([
      {
        id: 'id1',
        playbookId: 'onboarding',
        accountId: ACCOUNT,
        email: 'ada@x',
        startedBy: 'signed_up',
        startEventId: start.eventId,
        status: 'stopped',
        stoppedBy: 'purchase',
        stopEventId: stop.eventId,
      },
    ]);
    expect(plan.stops).toEqual([]);
    expect(plan.effects.map((e) => `${e.eventId} ${e.playbookId} ${e.action}`)).toEqual([
      `${start.eventId} onboarding started`,
      `${stop.eventId} onboarding stopped`,
    ]);
  });

  it('when the same person is triggered twice in one batch, then only the first starts an enrollment', () => {
    const plan = planBatch({ events: [ev('bo@x', 'signed_up'), ev('bo@x', 'signed_up')], optedIn, active: [], newId: ids() });
    expect(plan.starts).toHaveLength(1);
    expect(plan.effects).toHaveLength(1);
  });

  it('when an exit meets an enrollment active before the batch, then it is an update of that row, and a later trigger starts a new one', () => {
    const active = [{ id: 'old', playbookId: 'onboarding', accountId: ACCOUNT, email: 'cy@x' }];
    const stop = ev('cy@x', 'purchase');
    const again = ev('cy@x', 'signed_up');
    const plan = planBatch({ events: [stop, again], optedIn, active, newId: ids() });
    expect(plan.stops).toEqual([{ enrollmentId: 'old', stoppedBy: 'purchase', stopEventId: stop.eventId }]);
    expect(plan.starts).toEqual([expect.objectContaining({ playbookId: 'onboarding', status: 'active', startEventId: again.eventId })]);
  });

  it('when one event both exits and triggers a playbook the person is in (restart), then the old stops and a new one starts; twice in a batch, the middle one is inserted stopped', () => {
    const active = [{ id: 'old', playbookId: 'form', accountId: ACCOUNT, email: 'di@x' }];
    const first = ev('di@x', 'form_submitted');
    const second = ev('di@x', 'form_submitted');
    const plan = planBatch({ events: [first, second], optedIn, active, newId: ids() });
    expect(plan.stops).toEqual([{ enrollmentId: 'old', stoppedBy: 'form_submitted', stopEventId: first.eventId }]);
    expect(plan.starts.map((s) => [s.startEventId, s.status, s.stopEventId])).toEqual([
      [first.eventId, 'stopped', second.eventId],
      [second.eventId, 'active', null],
    ]);
    expect(plan.effects.map((e) => e.action)).toEqual(['stopped', 'started', 'stopped', 'started']);
  });

  it('when an event id appears twice in the batch, then the repeat changes nothing: no effect, no catalog count', () => {
    const e = ev('ed@x', 'signed_up');
    const plan = planBatch({ events: [e, { ...e }], optedIn, active: [], newId: ids() });
    expect(plan.applied).toEqual([e]);
    expect(plan.starts).toHaveLength(1);
    expect(plan.effects).toHaveLength(1);
    expect(plan.catalog).toEqual([{ accountId: ACCOUNT, name: 'signed_up', firstSeenAt: e.receivedAt, lastSeenAt: e.receivedAt, count: 1 }]);
  });

  it('when names repeat, then the catalog has one row per (account, name) with the count and the earliest and latest receive times, sorted', () => {
    const events = [
      ev('a@x', 'zeta', 'z1', '2026-01-01T00:00:05.000Z'),
      ev('b@x', 'alpha', 'a1', '2026-01-01T00:00:09.000Z'),
      ev('c@x', 'zeta', 'z2', '2026-01-01T00:00:01.000Z'),
      { ...ev('c@x', 'alpha', 'b1'), accountId: 'acc-0' },
    ];
    const plan = planBatch({ events, optedIn, active: [], newId: ids() });
    expect(plan.catalog.map((c) => [c.accountId, c.name, c.count, c.firstSeenAt, c.lastSeenAt])).toEqual([
      ['acc-0', 'alpha', 1, events[3]!.receivedAt, events[3]!.receivedAt],
      [ACCOUNT, 'alpha', 1, '2026-01-01T00:00:09.000Z', '2026-01-01T00:00:09.000Z'],
      [ACCOUNT, 'zeta', 2, '2026-01-01T00:00:01.000Z', '2026-01-01T00:00:05.000Z'],
    ]);
    expect(plan.effects).toEqual([]);
  });

  it('when a random batch over a few people is planned, then its effects are those of applying the events one by one', () => {
    let s = 7;
    const rnd = () => (s = (s * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const names = ['signed_up', 'purchase', 'form_submitted', 'other'];
    for (let round = 0; round < 50; round++) {
      const events = Array.from({ length: 40 }, () => ev(`p${Math.floor(rnd() * 4)}@x`, names[Math.floor(rnd() * names.length)]!));
      if (rnd() < 0.3) events.push({ ...events[Math.floor(rnd() * events.length)]! }); // a repeated id
      const active = rnd() < 0.5 ? [{ id: 'a0', playbookId: 'onboarding', accountId: ACCOUNT, email: 'p0@x' }] : [];
      const plan = planBatch({ events, optedIn, active, newId: ids() });
      expect(plan.effects.map((e) => `${e.eventId} ${e.playbookId} ${e.action}`)).toEqual(oneByOne(events, active));
      // At most one enrollment per person and playbook ends the batch active.
      const activeAfter = plan.starts.filter((x) => x.status === 'active').map((x) => `${x.email} ${x.playbookId}`);
      expect(new Set(activeAfter).size).toBe(activeAfter.length);
    }
  });
});

describe('planBatch: re-enrollment policies', () => {
  // Welcome is triggered by signed_up and stopped by purchase; its policy varies per test.
  const welcome = new Map([
    [pairKey(ACCOUNT, 'signed_up'), { triggers: ['welcome'], exits: [] }],
    [pairKey(ACCOUNT, 'purchase'), { triggers: [], exits: ['welcome'] }],
  ]);
  const policy = (p: 'once' | 'when_inactive' | 'restart') => new Map([['welcome', p]] as const);
  const actions = (plan: ReturnType<typeof planBatch>) => plan.effects.map((e) => `${e.eventId} ${e.action}`);

  it('when_inactive (the default): trigger, trigger again while active (nothing), exit, trigger (starts again)', () => {
    const [a, b, c, d] = [ev('w@x', 'signed_up'), ev('w@x', 'signed_up'), ev('w@x', 'purchase'), ev('w@x', 'signed_up')];
    for (const policies of [undefined, policy('when_inactive')]) {
      const plan = planBatch({ events: [a, b, c, d], optedIn: welcome, active: [], policies, newId: ids() });
      expect(actions(plan)).toEqual([`${a.eventId} started`, `${c.eventId} stopped`, `${d.eventId} started`]);
      expect(plan.receipts.find((r) => r.eventId === b.eventId)).toEqual({
        eventId: b.eventId,
        accountId: ACCOUNT,
        eventName: 'signed_up',
        changed: [],
        unchanged: [{ playbookId: 'welcome', reason: 'already_active' }],
      });
    }
  });

  it('once: the first trigger starts; after an exit, a trigger starts nothing, within the batch and across batches', () => {
    const [a, c, d] = [ev('o@x', 'signed_up'), ev('o@x', 'purchase'), ev('o@x', 'signed_up')];
    const plan = planBatch({ events: [a, c, d], optedIn: welcome, active: [], policies: policy('once'), newId: ids() });
    expect(actions(plan)).toEqual([`${a.eventId} started`, `${c.eventId} stopped`]);
    expect(plan.receipts.at(-1)?.unchanged).toEqual([{ playbookId: 'welcome', reason: 'reenrollment_policy' }]);

    // A later batch: the stopped enrollment, loaded with the active ones, keeps the person out.
    const later = ev('o@x', 'signed_up');
    const next = planBatch({
      events: [later],
      optedIn: welcome,
      active: [],
      enrolledBefore: [{ playbookId: 'welcome', accountId: ACCOUNT, email: 'o@x' }],
      policies: policy('once'),
      newId: ids(),
    });
    expect(next.effects).toEqual([]);
    expect(next.starts).toEqual([]);
    // Someone else was never enrolled: they start.
    const other = ev('o2@x', 'signed_up');
    expect(
      actions(
        planBatch({
          events: [other],
          optedIn: welcome,
          active: [],
          enrolledBefore: [{ playbookId: 'welcome', accountId: ACCOUNT, email: 'o@x' }],
          policies: policy('once'),
          newId: ids(),
        }),
      ),
    ).toEqual([`${other.eventId} started`]);
  });

  it('restart: a trigger while active stops the enrollment and starts a new one, whether active before the batch or started in it', () => {
    const active = [{ id: 'old', playbookId: 'welcome', accountId: ACCOUNT, email: 'r@x' }];
    const [a, b] = [ev('r@x', 'signed_up'), ev('r@x', 'signed_up')];
    const plan = planBatch({ events: [a, b], optedIn: welcome, active, policies: policy('restart'), newId: ids() });
    expect(actions(plan)).toEqual([`${a.eventId} stopped`, `${a.eventId} started`, `${b.eventId} stopped`, `${b.eventId} started`]);
    expect(plan.stops).toEqual([{ enrollmentId: 'old', stoppedBy: 'signed_up', stopEventId: a.eventId }]);
    expect(plan.starts.map((s) => [s.startEventId, s.status, s.stopEventId])).toEqual([
      [a.eventId, 'stopped', b.eventId],
      [b.eventId, 'active', null],
    ]);
  });

  it.each(['once', 'when_inactive', 'restart'] as const)('%s: a redelivered event (its id again in the batch) changes nothing more', (p) => {
    const active = [{ id: 'old', playbookId: 'welcome', accountId: ACCOUNT, email: 'x@x' }];
    const a = ev('x@x', 'signed_up');
    const once = planBatch({ events: [a], optedIn: welcome, active, policies: policy(p), newId: ids() });
    const twice = planBatch({ events: [a, { ...a }, { ...a }], optedIn: welcome, active, policies: policy(p), newId: ids() });
    expect(twice.effects).toEqual(once.effects);
    expect(twice.starts).toEqual(once.starts);
    expect(twice.stops).toEqual(once.stops);
    expect(twice.receipts).toEqual(once.receipts);
  });

  it('when the person is suppressed, then their trigger starts nothing and the receipt says suppressed', () => {
    const a = ev('s@x', 'signed_up');
    const plan = planBatch({
      events: [a],
      optedIn: welcome,
      active: [],
      policies: policy('restart'),
      suppressed: new Set([pairKey(ACCOUNT, 's@x')]),
      newId: ids(),
    });
    expect(plan.effects).toEqual([]);
    expect(plan.receipts).toEqual([
      { eventId: a.eventId, accountId: ACCOUNT, eventName: 'signed_up', changed: [], unchanged: [{ playbookId: 'welcome', reason: 'suppressed' }] },
    ]);
    expect(plan.catalog).toHaveLength(1);
  });
});
