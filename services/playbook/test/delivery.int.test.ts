// Delivery guarantees of the playbook consumer on the real broker and database: a redelivered
// message changes nothing, and replicas that are killed, restarted, join and leave mid-stream lose
// and duplicate nothing.
import { randomUUID } from 'node:crypto';
import { TOPICS, personKey, type InboundEvent } from '@glimpse/messaging';
import type { RunningGateway } from '@glimpse/gateway';
import { createPlaybook, eventCatalog, listEnrollments, type RunningPlaybookService } from '@glimpse/playbook';
import { cachedAccounts } from '../src/data/batch-store';
import { applyBatch } from '../src/wiring/batch';
import {
  closeTestDb,
  createTestAccount,
  sendNamesOnce,
  startTestGateway,
  startTestPlaybookService,
  testDb,
  uniqueEmail,
  waitFor,
} from '../../../test/support/stack';
import { freshGroupAtEnd, produceRaw } from '../../../test/support/kafka-helpers';
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
  const rows = await testDb('playbook').processedEvent.findMany({ where: { accountId }, select: { eventId: true } });
  return rows.map((r) => r.eventId);
}

async function countOf(table: 'processed_events' | 'playbook_effects', accountId: string): Promise<number> {
  const [row] = await testDb('playbook').$queryRawUnsafe<{ n: bigint }[]>(`SELECT count(*) AS n FROM ${table} WHERE account_id = $1::uuid`, accountId);
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
    const pb = await createPlaybook(testDb('playbook'), { accountId: account.accountId, name: 'Demo follow-up', triggers: ['demo_booked'] });
    const email = uniqueEmail();
    const key = personKey(account.accountId, email);
    const event = inboundEvent(account.accountId, email, 'demo_booked');
    const sentinel = inboundEvent(account.accountId, email, 'sentinel');

    // Two separate sends, as a producer retry or a replay would write it; the sentinel follows on the same partition.
    await produceRaw(TOPICS.eventsInbound, [{ key, value: JSON.stringify(event) }]);
    await produceRaw(TOPICS.eventsInbound, [{ key, value: JSON.stringify(event) }]);
    await produceRaw(TOPICS.eventsInbound, [{ key, value: JSON.stringify(sentinel) }]);
    await waitFor(async () => (await processedIds(account.accountId)).includes(sentinel.eventId), { what: 'the sentinel applied' });

    expect(await listEnrollments(testDb('playbook'), account.accountId, pb.id)).toEqual([
      expect.objectContaining({ email, status: 'active', startedBy: 'demo_booked' }),
    ]);
    const effects = await testDb('playbook').playbookEffect.findMany({ where: { accountId: account.accountId } });
    expect(effects.map((e) => [e.eventId, e.playbookId, e.action])).toEqual([[event.eventId, pb.id, 'started']]);
    expect((await eventCatalog(testDb('playbook'), account.accountId)).find((e) => e.name === 'demo_booked')?.count).toBe(2); // the catalog send, plus this one once
  });
});

// The replicas test: one playbook, started by "go" and stopped by "stop"; every person
// sends a random sequence of both, so the order of a person's events decides every outcome.
const PEOPLE = 1000;
const EVENTS_PER_PERSON = 20;
const WAVES = 4;

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

interface Row {
  email: string;
  status: string;
  startEventId: string;
  stopEventId: string | null;
}

/** Replays one person's events in order: the enrollments and effects they must leave. */
function replay(email: string, events: InboundEvent[]) {
  const enrollments: Row[] = [];
  const effects: string[] = [];
  let active: Row | undefined;
  for (const e of events) {
    if (e.event === 'go' && !active) {
      active = { email, status: 'active', startEventId: e.eventId, stopEventId: null };
      enrollments.push(active);
      effects.push(`${e.eventId} started`);
    } else if (e.event === 'stop' && active) {
      Object.assign(active, { status: 'stopped', stopEventId: e.eventId });
      active = undefined;
      effects.push(`${e.eventId} stopped`);
    }
  }
  return { enrollments, effects };
}

const rowKey = (r: Row) => `${r.email} ${r.startEventId} ${r.status} ${r.stopEventId}`;

describe('three replicas in one group, one killed, one joining and leaving', () => {
  const children: ChildService[] = [];
  const startChild = async (groupId: string) => {
    // Small chunks: many commits, so a kill lands between a chunk's commit and its offsets' commit.
    const child = await startChildPlaybookService({ PLAYBOOK_GROUP_ID: groupId, PLAYBOOK_SESSION_TIMEOUT_MS: '6000', PLAYBOOK_MAX_BATCH: '250' });
    children.push(child);
    return child;
  };
  const alive = (child: ChildService) => {
    const exit = child.exit();
    if (exit) throw new Error(`a playbook replica exited (${JSON.stringify(exit)}):\n${child.output()}`);
    return true;
  };

  beforeAll(() => {
    assertPlaybookBuild();
  });
  afterAll(async () => {
    await Promise.all(children.map((c) => c.kill('SIGKILL')));
  });

  it('when 20,000 events over 1,000 people flow through 3 replicas while one is SIGKILLed and restarted and a 4th joins and leaves, then every person ends exactly as an in-order replay, and no event has two effects', async () => {
    const { accountId } = await createTestAccount();
    await applyBatch(testDb('playbook'), [inboundEvent(accountId, uniqueEmail('seed'), 'go')], cachedAccounts(testDb('playbook'), 0)); // rule 3: "go" must be in the catalog
    const pb = await createPlaybook(testDb('playbook'), { accountId, name: 'Journey', triggers: ['go'], exits: ['stop'] });
    const groupId = await freshGroupAtEnd(TOPICS.eventsInbound, 'glimpse-playbook-test-replicas');
    const processedBefore = await countOf('processed_events', accountId);
    const processed = async () => (await countOf('processed_events', accountId)) - processedBefore;

    // Each person's events in order; people interleaved, as many senders would.
    const next = random(20_261_123);
    const people = Array.from({ length: PEOPLE }, (_, i) => ({ email: `replica${i}.${uniqueEmail()}`, events: [] as InboundEvent[] }));
    const stream: InboundEvent[] = [];
    for (let round = 0; round < EVENTS_PER_PERSON; round++) {
      for (const p of [...people].sort(() => next() - 0.5)) {
        const e = inboundEvent(accountId, p.email, next() < 0.5 ? 'go' : 'stop');
        p.events.push(e);
        stream.push(e);
      }
    }
    const total = stream.length;
    const wave = (k: number) =>
      produceRaw(
        TOPICS.eventsInbound,
        stream.slice((k * total) / WAVES, ((k + 1) * total) / WAVES).map((e) => ({ key: personKey(accountId, e.email), value: JSON.stringify(e) })),
      );
    const until = (n: number, what: string) =>
      waitFor(async () => children.every((c) => c.exit()?.signal === 'SIGKILL' || c.exit()?.code === 0 || alive(c)) && (await processed()) >= n, {
        intervalMs: 50,
        timeoutMs: 120_000,
        what,
      });

    const replicas = await Promise.all([startChild(groupId), startChild(groupId), startChild(groupId)]);
    await wave(0);
    await until(total / 8, 'a part of the first wave applied');
    await replicas[1]!.kill('SIGKILL');
    expect(replicas[1]!.exit()).toEqual({ code: null, signal: 'SIGKILL' });
    expect(await processed()).toBeLessThan(total);
    await Promise.all([wave(1), startChild(groupId)]); // the killed replica comes back
    const fourth = await startChild(groupId);
    await until((2 * total) / 4, 'two waves applied with a 4th replica in the group');
    await wave(2);
    await until((5 * total) / 8, 'some of the third wave applied');
    await fourth.kill('SIGTERM'); // leaves the group cleanly
    expect(fourth.exit()).toEqual({ code: 0, signal: null });
    await wave(3);
    await until(total, `all ${total} events applied`);

    // Every event applied once; the enrollments and effects are exactly an in-order replay per person.
    const enrollments = await testDb('playbook').enrollment.findMany({
      where: { playbookId: pb.id },
      select: { email: true, status: true, startEventId: true, stopEventId: true },
    });
    const expected = people.map((p) => replay(p.email, p.events));
    expect(enrollments.map(rowKey).sort()).toEqual(
      expected
        .flatMap((x) => x.enrollments)
        .map(rowKey)
        .sort(),
    );
    const effects = await testDb('playbook').playbookEffect.findMany({ where: { playbookId: pb.id }, select: { eventId: true, action: true } });
    const expectedEffects = expected.flatMap((x) => x.effects);
    expect(expectedEffects.length).toBeGreaterThan(total / 5); // the scenario really moves enrollments
    expect(effects.map((e) => `${e.eventId} ${e.action}`).sort()).toEqual(expectedEffects.sort());
    expect(new Set(effects.map((e) => e.eventId)).size).toBe(effects.length); // no event with two effects
    expect(await processed()).toBe(total);
    await waitFor(async () => (await testDb('playbook').playbookEffect.count({ where: { playbookId: pb.id, publishedAt: null } })) === 0, {
      what: 'every effect published',
    });
  }, 240_000);
});
