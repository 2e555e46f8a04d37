// Bounded failure handling of the playbook consumer on the real broker and Postgres: a valid event
// Postgres refuses goes to events.inbound.dlq with its reason while the rest of its batch is
// applied, and a consumer that cannot progress is reported stuck on /readyz and /metrics.
import { randomUUID } from 'node:crypto';
import { TOPICS, personKey, type InboundEvent } from '@glimpse/messaging';
import { createPlaybook, type RunningPlaybookService } from '@glimpse/playbook';
import { cachedAccounts } from '../src/data/batch-store';
import { applyBatch } from '../src/wiring/batch';
import { closeTestDb, createTestAccount, startTestPlaybookService, testDb, uniqueEmail, waitFor } from '../../../test/support/stack';
import { endOffsets, produceRaw, readTopic } from '../../../test/support/kafka-helpers';

let playbook: RunningPlaybookService;

beforeAll(async () => {
  playbook = await startTestPlaybookService({
    PLAYBOOK_STUCK_AFTER_MS: '1000',
    PLAYBOOK_LAG_POLL_MS: '200',
    PLAYBOOK_RETRY_BACKOFF_MS: '20',
    PLAYBOOK_RETRY_BACKOFF_MAX_MS: '200',
  });
});

afterAll(async () => {
  await playbook?.stop();
  await closeTestDb();
});

const inbound = (accountId: string, email: string, event: string): InboundEvent => ({
  eventId: randomUUID(),
  accountId,
  event,
  email,
  properties: {},
  receivedAt: new Date().toISOString(),
});

async function accountWithPlaybook(name: string) {
  const { accountId } = await createTestAccount();
  await applyBatch(testDb('playbook'), [inbound(accountId, uniqueEmail('seed'), name)], cachedAccounts(testDb('playbook'), 0));
  const pb = await createPlaybook(testDb('playbook'), { accountId, name: 'P', triggers: [name] });
  return { accountId, pb };
}

const enrolled = (playbookId: string) => testDb('playbook').enrollment.count({ where: { playbookId } });

describe('a valid event that keeps failing', () => {
  it('when one event of a batch is refused by Postgres, then it goes to the dead-letter topic with its reason after its attempts, and the rest of the partition is applied', async () => {
    const { accountId, pb } = await accountWithPlaybook('poisoned');
    const key = personKey(accountId, 'one-partition'); // one key: one partition, one batch, in order
    const events = Array.from({ length: 40 }, () => inbound(accountId, uniqueEmail('ok'), 'poisoned'));
    const poison = inbound(accountId, 'nul\u0000byte@example.com', 'poisoned'); // valid JSON and schema; Postgres text refuses NUL
    events.splice(23, 0, poison);
    const dlqFrom = await endOffsets(TOPICS.eventsDeadLetter);

    await produceRaw(
      TOPICS.eventsInbound,
      events.map((e) => ({ key, value: JSON.stringify(e) })),
    );

    await waitFor(async () => (await enrolled(pb.id)) === 40, { what: 'the 40 good events applied' });
    const dead = await readTopic(TOPICS.eventsDeadLetter, { from: dlqFrom, until: (read) => read.some((m) => m.json?.eventId === poison.eventId) });
    const letter = dead.find((m) => m.json?.eventId === poison.eventId)!;
    expect(letter.headers).toMatchObject({ 'x-source-topic': TOPICS.eventsInbound, 'x-attempts': '3' });
    expect(letter.headers['x-reason']).toMatch(/^apply failed: .*22021/);
    expect(letter.headers['x-reason']).not.toContain('nul');
    expect(await testDb('playbook').processedEvent.count({ where: { eventId: poison.eventId } })).toBe(0);
    const metrics = await (await fetch(`${playbook.url}/metrics`)).text();
    expect(metrics).toMatch(/glimpse_events_processed_total\{outcome="dead_letter"\} [1-9]/);
    expect(metrics).toMatch(/glimpse_consumer_retries_total\{kind="split"\} [1-9]/);
  });
});

describe('a consumer that cannot progress', () => {
  it('when its partition is behind and nothing moves for longer than PLAYBOOK_STUCK_AFTER_MS, then /readyz is 503 naming the partition and /metrics counts it; once it moves, ready again', async () => {
    const { accountId, pb } = await accountWithPlaybook('blocked');
    const db = testDb('playbook');
    // Holds the dedupe table locked, as a stuck database would: the consumer's transaction waits on it.
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    let locked!: () => void;
    const isLocked = new Promise<void>((r) => (locked = r));
    const holder = db.$transaction(
      async (tx) => {
        await tx.$executeRawUnsafe('LOCK TABLE processed_events IN ACCESS EXCLUSIVE MODE');
        locked();
        await released;
      },
      { timeout: 60_000 },
    );
    await isLocked;
    try {
      await produceRaw(TOPICS.eventsInbound, [{ key: personKey(accountId, 'x'), value: JSON.stringify(inbound(accountId, uniqueEmail(), 'blocked')) }]);
      const ready = await waitFor(
        async () => {
          const res = await fetch(`${playbook.url}/readyz`);
          return res.status === 503 && ((await res.json()) as { checks: Record<string, string>; detail: { lag: Record<string, number> } });
        },
        { what: '/readyz to report the consumer stuck' },
      );
      expect(ready.checks.consumer).toMatch(/^failed: stuck: partition \d+, 1 behind, no progress for \d+ s$/);
      expect(Object.values(ready.detail.lag)).toContain(1);
      expect(await (await fetch(`${playbook.url}/metrics`)).text()).toMatch(/glimpse_consumer_stuck_partitions [1-9]/);
    } finally {
      release();
      await holder;
    }
    await waitFor(async () => (await enrolled(pb.id)) === 1, { what: 'the event applied once the lock is gone' });
    await waitFor(async () => (await fetch(`${playbook.url}/readyz`)).status === 200, { what: '/readyz ready again' });
  });
});
