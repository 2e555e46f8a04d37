// Delivery guarantees of the playbook consumer on the real broker and database: a redelivered
// message changes nothing, and a consumer killed mid-stream loses and duplicates nothing.
import { randomUUID } from 'node:crypto';
import { TOPICS, personKey, type InboundEvent } from '@glimpse/messaging';
import type { RunningGateway } from '@glimpse/gateway';
import { createPlaybook, decideEffects, eventCatalog, listEnrollments, type PlaybookView, type RunningPlaybookService } from '@glimpse/playbook';
import { closeTestDb, createTestAccount, postEvent, sendNamesOnce, startTestGateway, startTestPlaybookService, testDb, uniqueEmail, waitFor } from '../../../test/support/stack';
import { endOffsets, freshGroupAtEnd, ofAccount, produceRaw, readTopic } from '../../../test/support/kafka-helpers';
import { assertPlaybookBuild, startChildPlaybookService, type ChildService } from '../../../test/support/child-service';

let gateway: RunningGateway;

beforeAll(async () => {
  gateway = await startTestGateway();
});

afterAll(async () => {
  await gateway?.stop();
  await closeTestDb();
});

async function processedIds(accountId: string): Promise<string[]> {
  const rows = await testDb().processedEvent.findMany({ where: { accountId }, select: { eventId: true } });
  return rows.map((r) => r.eventId);
}

async function countOf(table: 'processed_events' | 'playbook_effects', accountId: string): Promise<number> {
  const [row] = await testDb().$queryRawUnsafe<{ n: bigint }[]>(`SELECT count(*) AS n FROM ${table} WHERE account_id = $1::uuid`, accountId);
  return Number(row!.n);
}

const inboundEvent = (accountId: string, email: string, event: string): InboundEvent => ({
  eventId: randomUUID(),
  accountId,
  event,
  email,
  properties: {},
  receivedAt: new Date().toISOString(),
});

describe('a message delivered twice', () => {
  let playbook: RunningPlaybookService;
  beforeAll(async () => {
    playbook = await startTestPlaybookService({ PLAYBOOK_GROUP_ID: await freshGroupAtEnd(TOPICS.eventsInbound, 'glimpse-playbook-test-redelivery') });
  });
  afterAll(async () => {
    await playbook?.stop();
  });

  it('when the same event (same eventId) is on events.inbound twice, then it is applied once: one enrollment, one effect, one catalog count', async () => {
    const account = await createTestAccount();
    await sendNamesOnce(gateway.url, account, ['demo_booked']);
    const pb = await createPlaybook(testDb(), { accountId: account.accountId, name: 'Demo follow-up', triggers: ['demo_booked'] });
    const email = uniqueEmail();
    const key = personKey(account.accountId, email);
    const event = inboundEvent(account.accountId, email, 'demo_booked');
    const sentinel = inboundEvent(account.accountId, email, 'sentinel');

    // Two separate sends, as a producer retry or a replay would write it; the sentinel follows on the same partition.
    await produceRaw(TOPICS.eventsInbound, [{ key, value: JSON.stringify(event) }]);
    await produceRaw(TOPICS.eventsInbound, [{ key, value: JSON.stringify(event) }]);
    await produceRaw(TOPICS.eventsInbound, [{ key, value: JSON.stringify(sentinel) }]);
    await waitFor(async () => (await processedIds(account.accountId)).includes(sentinel.eventId), { what: 'the sentinel applied' });

    expect(await listEnrollments(testDb(), account.accountId, pb.id)).toEqual([expect.objectContaining({ email, status: 'active', startedBy: 'demo_booked' })]);
    const effects = await testDb().playbookEffect.findMany({ where: { accountId: account.accountId } });
    expect(effects.map((e) => [e.eventId, e.playbookId, e.action])).toEqual([[event.eventId, pb.id, 'started']]);
    expect((await eventCatalog(testDb(), account.accountId)).find((e) => e.name === 'demo_booked')?.count).toBe(2); // the catalog send, plus this one once
  });
});

// The playbooks of the kill test: every name both starts and stops something, so the order of a person's events decides the outcome.
const PLAYBOOKS = [
  { name: 'Onboarding', triggers: ['signed_up'], exits: ['purchase', 'unsubscribed'] },
  { name: 'Demo prep', triggers: ['demo_booked'], exits: ['purchase'] },
  { name: 'Form reply', triggers: ['form_submitted'], exits: ['form_submitted', 'unsubscribed'] },
  { name: 'Win-back', triggers: ['unsubscribed'], exits: ['signed_up', 'demo_booked'] },
];
const NAMES = ['signed_up', 'demo_booked', 'form_submitted', 'purchase', 'unsubscribed'];
const PEOPLE = 100;
const EVENTS_PER_PERSON = 3;

/** A small seeded generator, so a failure can be replayed with the same events. */
function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface ExpectedEnrollment {
  playbookId: string;
  email: string;
  status: string;
  startEventId: string;
  stopEventId: string | null;
}

/** Replays one person's events in order through the effect rules: the enrollments and effects they must leave. */
function replay(playbooks: PlaybookView[], email: string, events: { eventId: string; event: string }[]) {
  const enrollments: ExpectedEnrollment[] = [];
  const effects: string[] = [];
  const active = new Map<string, ExpectedEnrollment>();
  for (const { eventId, event } of events) {
    const decision = decideEffects({
      exitPlaybookIds: playbooks.filter((p) => p.exits.includes(event)).map((p) => p.id),
      triggerPlaybookIds: playbooks.filter((p) => p.triggers.includes(event)).map((p) => p.id),
      activePlaybookIds: [...active.keys()],
    });
    for (const playbookId of decision.stop) {
      Object.assign(active.get(playbookId)!, { status: 'stopped', stopEventId: eventId });
      active.delete(playbookId);
      effects.push(`${eventId} ${playbookId} stopped`);
    }
    for (const playbookId of decision.start) {
      const enrollment = { playbookId, email, status: 'active', startEventId: eventId, stopEventId: null };
      enrollments.push(enrollment);
      active.set(playbookId, enrollment);
      effects.push(`${eventId} ${playbookId} started`);
    }
  }
  return { enrollments, effects };
}

/** A counter of the child's glimpse_events_processed_total, from its /metrics. */
async function processedByOutcome(child: ChildService, outcome: string): Promise<number> {
  const text = await (await fetch(`${child.url}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(`glimpse_events_processed_total{outcome="${outcome}"}`));
  return line ? Number(line.split(' ').pop()) : 0;
}

const byKey = (e: ExpectedEnrollment) => `${e.email} ${e.playbookId} ${e.startEventId}`;

describe('a consumer killed mid-stream', () => {
  const children: ChildService[] = [];
  const startChild = async (groupId: string) => {
    const child = await startChildPlaybookService({ PLAYBOOK_GROUP_ID: groupId, PLAYBOOK_SESSION_TIMEOUT_MS: '6000' });
    children.push(child);
    return child;
  };
  const alive = (child: ChildService) => {
    const exit = child.exit();
    if (exit) throw new Error(`the playbook service exited (${JSON.stringify(exit)}):\n${child.output()}`);
    return true;
  };

  beforeAll(() => {
    assertPlaybookBuild();
  });
  afterAll(async () => {
    await Promise.all(children.map((c) => c.kill('SIGKILL')));
  });

  it('when the playbook service is SIGKILLed while applying events and started again, then every event is applied once, in order, with no effect lost or doubled', async () => {
    const account = await createTestAccount();
    // The names go into the catalog through an instance of its own group, gone before the events below are sent.
    const primer = await startChild(await freshGroupAtEnd(TOPICS.eventsInbound, 'glimpse-playbook-test-delivery-primer'));
    await sendNamesOnce(gateway.url, account, NAMES);
    await primer.kill('SIGKILL');
    const playbooks = await Promise.all(PLAYBOOKS.map((p) => createPlaybook(testDb(), { accountId: account.accountId, ...p })));
    // No instance of this group runs while the events are sent, so the next one takes them in large
    // batches: the kill then lands mid-batch, after some events are applied but before their offsets are committed.
    const groupId = await freshGroupAtEnd(TOPICS.eventsInbound, 'glimpse-playbook-test-delivery');
    const processedBefore = await countOf('processed_events', account.accountId);
    const inboundBefore = await endOffsets(TOPICS.eventsInbound);
    const effectsBefore = await endOffsets(TOPICS.playbookEffects);

    const next = random(20_240_601);
    const people = Array.from({ length: PEOPLE }, () => ({
      email: uniqueEmail('delivery'),
      events: Array.from({ length: EVENTS_PER_PERSON }, () => NAMES[Math.floor(next() * NAMES.length)]!),
    }));
    const total = PEOPLE * EVENTS_PER_PERSON;
    const accepted = new Map<string, string[]>(); // email → names answered 200, in the order sent
    // Each person's events are sent one after another (so their order is defined); people in parallel.
    const queue = [...people];
    await Promise.all(
      Array.from({ length: 10 }, async () => {
        for (let person = queue.shift(); person; person = queue.shift()) {
          for (const event of person.events) {
            const res = await postEvent(gateway.url, account.token, { event, email: person.email });
            if (res.status === 200) accepted.set(person.email, [...(accepted.get(person.email) ?? []), event]);
          }
        }
      }),
    );
    expect([...accepted.values()].reduce((n, names) => n + names.length, 0)).toBe(total);

    const second = await startChild(groupId);
    const atKill = await waitFor(async () => {
      alive(second);
      const [processed, effects] = await Promise.all([countOf('processed_events', account.accountId), countOf('playbook_effects', account.accountId)]);
      return processed - processedBefore >= total / 4 && effects > 0 && { processed: processed - processedBefore, effects };
    }, { intervalMs: 10, timeoutMs: 20_000, what: 'a quarter of the events applied' });
    await second.kill('SIGKILL');
    expect(second.exit()).toEqual({ code: null, signal: 'SIGKILL' });
    expect(atKill.processed).toBeLessThan(total);

    const third = await startChild(groupId);
    await waitFor(async () => alive(third) && (await countOf('processed_events', account.accountId)) - processedBefore >= total, {
      intervalMs: 100,
      timeoutMs: 25_000,
      what: `all ${total} events applied after the restart`,
    });
    // The restart really was redelivered events the killed instance had already applied.
    expect(await processedByOutcome(third, 'duplicate')).toBeGreaterThan(0);

    // The order each person's events were written in, as the consumer saw it.
    const inboundAfter = await endOffsets(TOPICS.eventsInbound);
    const written = ofAccount(await readTopic(TOPICS.eventsInbound, { from: inboundBefore, to: inboundAfter }), account.accountId).map((m) => m.json as InboundEvent);
    const sequences = new Map<string, { eventId: string; event: string }[]>();
    for (const e of written) sequences.set(e.email, [...(sequences.get(e.email) ?? []), { eventId: e.eventId, event: e.event }]);
    // What the gateway accepted is what was written, per person in the order sent.
    expect(new Map([...sequences].map(([email, seq]) => [email, seq.map((s) => s.event)]))).toEqual(accepted);

    // Every accepted event applied exactly once.
    const applied = (await processedIds(account.accountId)).filter((id) => written.some((w) => w.eventId === id));
    expect(applied.sort()).toEqual(written.map((w) => w.eventId).sort());
    expect(new Set(written.map((w) => w.eventId)).size).toBe(total);

    // Enrollments and effects are exactly what replaying each person's events in order gives.
    const expected = [...sequences].map(([email, seq]) => replay(playbooks, email, seq));
    const emails = new Set(sequences.keys());
    const enrollments = (await testDb().enrollment.findMany({
      where: { accountId: account.accountId },
      select: { playbookId: true, email: true, status: true, startEventId: true, stopEventId: true },
    })).filter((e) => emails.has(e.email));
    expect(enrollments.sort((a, b) => byKey(a).localeCompare(byKey(b)))).toEqual(expected.flatMap((x) => x.enrollments).sort((a, b) => byKey(a).localeCompare(byKey(b))));
    const effects = (await testDb().playbookEffect.findMany({ where: { accountId: account.accountId } })).filter((e) => emails.has(e.email));
    const expectedEffects = expected.flatMap((x) => x.effects);
    expect(expectedEffects.length).toBeGreaterThan(total / 3); // the scenario really exercises the playbooks
    expect(effects.map((e) => `${e.eventId} ${e.playbookId} ${e.action}`).sort()).toEqual(expectedEffects.sort());

    // And every effect is published (at least once; a redelivery may publish one again).
    await waitFor(async () => (await testDb().playbookEffect.count({ where: { accountId: account.accountId, publishedAt: null } })) === 0, { what: 'every effect published' });
    const unseen = new Set(effects.map((e) => e.id));
    let checked = 0;
    await readTopic(TOPICS.playbookEffects, {
      from: effectsBefore,
      until(read) {
        for (; checked < read.length; checked++) unseen.delete(read[checked]!.json?.effectId);
        return unseen.size === 0;
      },
      timeoutMs: 15_000,
    });
    expect(unseen.size).toBe(0);
  }, 90_000);
});
