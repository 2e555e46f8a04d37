// The set-based batch apply on the real Postgres: one transaction per batch, a redelivered batch
// changes nothing, and an exit and a trigger of one person in one batch come out as one by one.
import { randomUUID } from 'node:crypto';
import type { InboundEvent } from '@glimpse/messaging';
import { createPlaybook, eventCatalog } from '@glimpse/playbook';
import { cachedAccounts, foldCatalog, markEffectsPublished } from '../src/data/batch-store';
import { applyBatch } from '../src/wiring/batch';
import { purgeProcessedEvents } from '../src/data/processed-events-retention';
import { closeTestDb, createTestAccount, testDb, uniqueEmail } from '../../../test/support/stack';

afterAll(async () => {
  await closeTestDb();
});

const event = (accountId: string, email: string, name: string, receivedAt = new Date().toISOString()): InboundEvent => ({
  eventId: randomUUID(),
  accountId,
  email,
  event: name,
  properties: {},
  receivedAt,
});

async function seedCatalog(accountId: string, names: string[]) {
  await applyBatch(
    testDb('playbook'),
    names.map((n) => event(accountId, uniqueEmail('seed'), n)),
    cachedAccounts(testDb('playbook'), 0),
  );
}

async function stateOf(accountId: string) {
  const db = testDb('playbook');
  const [enrollments, effects, processed] = await Promise.all([
    db.enrollment.findMany({
      where: { accountId },
      select: { id: true, playbookId: true, email: true, status: true, startEventId: true, stopEventId: true },
      orderBy: [{ startedAt: 'asc' }, { id: 'asc' }],
    }),
    db.playbookEffect.findMany({ where: { accountId }, select: { id: true, eventId: true, playbookId: true, action: true }, orderBy: { id: 'asc' } }),
    db.processedEvent.count({ where: { accountId } }),
  ]);
  return { enrollments, effects, processed, catalog: await eventCatalog(db, accountId) };
}

describe('applyBatch', () => {
  it('when a batch holds a trigger and an exit of one person and a restart of another, then the rows are those of applying them one by one', async () => {
    const { accountId } = await createTestAccount();
    await seedCatalog(accountId, ['signed_up', 'form_submitted']);
    const onboarding = await createPlaybook(testDb('playbook'), { accountId, name: 'Onboarding', triggers: ['signed_up'], exits: ['purchase'] });
    const form = await createPlaybook(testDb('playbook'), { accountId, name: 'Form', triggers: ['form_submitted'], exits: ['form_submitted'] });
    const [ada, bo] = [uniqueEmail('ada'), uniqueEmail('bo')];
    // Bo is in Form before the batch.
    const before = event(accountId, bo, 'form_submitted');
    await applyBatch(testDb('playbook'), [before], cachedAccounts(testDb('playbook'), 0));

    const batch = [
      event(accountId, ada, 'signed_up'),
      event(accountId, bo, 'form_submitted'),
      event(accountId, ada, 'purchase'),
      event(accountId, ada, 'signed_up'),
    ];
    const outcome = await applyBatch(testDb('playbook'), batch, cachedAccounts(testDb('playbook'), 0));

    expect(outcome).toMatchObject({ applied: 4, duplicates: 0, deletedAccount: 0 });
    expect(outcome.effects.map((e) => [e.eventId, e.playbookId, e.action])).toEqual([
      [batch[0]!.eventId, onboarding.id, 'started'],
      [batch[1]!.eventId, form.id, 'stopped'],
      [batch[1]!.eventId, form.id, 'started'],
      [batch[2]!.eventId, onboarding.id, 'stopped'],
      [batch[3]!.eventId, onboarding.id, 'started'],
    ]);
    const { enrollments } = await stateOf(accountId);
    const of = (email: string) => enrollments.filter((e) => e.email === email).map((e) => [e.playbookId, e.status, e.startEventId, e.stopEventId]);
    expect(of(ada)).toEqual(
      expect.arrayContaining([
        [onboarding.id, 'stopped', batch[0]!.eventId, batch[2]!.eventId],
        [onboarding.id, 'active', batch[3]!.eventId, null],
      ]),
    );
    expect(of(bo)).toEqual(
      expect.arrayContaining([
        [form.id, 'stopped', before.eventId, batch[1]!.eventId],
        [form.id, 'active', batch[1]!.eventId, null],
      ]),
    );
    expect(of(ada)).toHaveLength(2);
    expect(of(bo)).toHaveLength(2);
  });

  it('when the batch is delivered again after its commit, then nothing changes and its unpublished effects are handed back to publish', async () => {
    const { accountId } = await createTestAccount();
    await seedCatalog(accountId, ['signed_up']);
    await createPlaybook(testDb('playbook'), { accountId, name: 'Onboarding', triggers: ['signed_up'] });
    const batch = Array.from({ length: 30 }, (_, i) => event(accountId, `p${i}.${uniqueEmail()}`, 'signed_up'));
    const first = await applyBatch(testDb('playbook'), batch, cachedAccounts(testDb('playbook'), 0));
    expect(first).toMatchObject({ applied: 30, duplicates: 0 });
    // Only some effects were published before the "crash".
    await markEffectsPublished(
      testDb('playbook'),
      first.effects.slice(0, 10).map((e) => e.id),
    );
    const after = await stateOf(accountId);

    const again = await applyBatch(testDb('playbook'), [...batch, batch[0]!], cachedAccounts(testDb('playbook'), 0));

    expect(again).toMatchObject({ applied: 0, duplicates: 31 });
    expect(again.effects.map((e) => e.id).sort()).toEqual(
      first.effects
        .slice(10)
        .map((e) => e.id)
        .sort(),
    );
    expect(await stateOf(accountId)).toEqual(after);
    expect(after.catalog.find((c) => c.name === 'signed_up')?.count).toBe(31);
  });

  it('when events of a deleted account are in the batch, then they are skipped and the rest applied', async () => {
    const { accountId } = await createTestAccount();
    const deleted = randomUUID();
    await testDb('playbook').accountState.create({ data: { accountId: deleted, deletedAt: new Date() } });
    const outcome = await applyBatch(
      testDb('playbook'),
      [event(deleted, uniqueEmail(), 'x'), event(accountId, uniqueEmail(), 'x')],
      cachedAccounts(testDb('playbook'), 0),
    );
    expect(outcome).toMatchObject({ applied: 1, deletedAccount: 1, duplicates: 0 });
  });

  it('when an event names an account this service has not heard of yet, then it is applied (the gateway authenticated it)', async () => {
    const outcome = await applyBatch(testDb('playbook'), [event(randomUUID(), uniqueEmail(), 'x')], cachedAccounts(testDb('playbook'), 0));
    expect(outcome).toMatchObject({ applied: 1, deletedAccount: 0 });
  });

  it('when one event of a batch has a value Postgres refuses, then the whole batch changes nothing', async () => {
    const { accountId } = await createTestAccount();
    await seedCatalog(accountId, ['x']);
    await createPlaybook(testDb('playbook'), { accountId, name: 'X', triggers: ['x'] });
    const processedBefore = (await stateOf(accountId)).processed;
    const good = event(accountId, uniqueEmail(), 'x');
    const poison = event(accountId, 'nul\u0000byte@example.com', 'x');
    await expect(applyBatch(testDb('playbook'), [good, poison], cachedAccounts(testDb('playbook'), 0))).rejects.toThrow();
    expect((await stateOf(accountId)).processed).toBe(processedBefore);
  });
});

describe('processed_events retention', () => {
  it('when the purge runs, then ids older than the retention are deleted and newer ones kept', async () => {
    const { accountId } = await createTestAccount();
    const [old, recent] = [event(accountId, uniqueEmail(), 'x'), event(accountId, uniqueEmail(), 'x')];
    await applyBatch(testDb('playbook'), [old, recent], cachedAccounts(testDb('playbook'), 0));
    await testDb('playbook').$executeRawUnsafe(`UPDATE processed_events SET processed_at = now() - interval '73 hours' WHERE event_id = $1::uuid`, old.eventId);

    expect(await purgeProcessedEvents(testDb('playbook'), 72)).toBeGreaterThanOrEqual(1);

    const left = await testDb('playbook').processedEvent.findMany({ where: { accountId }, select: { eventId: true } });
    expect(left.map((r) => r.eventId)).toEqual([recent.eventId]);
  });
});

describe('playbooks per account', () => {
  it('when an account has as many playbooks as it may, then creating one more is refused with limit_reached and nothing is created', async () => {
    const { accountId } = await createTestAccount();
    await createPlaybook(testDb('playbook'), { accountId, name: 'one' }, { maxPerAccount: 2 });
    await createPlaybook(testDb('playbook'), { accountId, name: 'two' }, { maxPerAccount: 2 });
    await expect(createPlaybook(testDb('playbook'), { accountId, name: 'three' }, { maxPerAccount: 2 })).rejects.toMatchObject({
      code: 'limit_reached',
      status: 409,
    });
    expect(await testDb('playbook').playbook.count({ where: { accountId } })).toBe(2);
  });
});

describe('the catalog fold', () => {
  it('when batches have appended catalog changes, then the catalog reads the same before and after they are folded, and a fold moves each change once', async () => {
    const { accountId } = await createTestAccount();
    const t = (s: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, s)).toISOString();
    await applyBatch(
      testDb('playbook'),
      [event(accountId, uniqueEmail(), 'a', t(5)), event(accountId, uniqueEmail(), 'b', t(6))],
      cachedAccounts(testDb('playbook'), 0),
    );
    await foldCatalog(testDb('playbook'));
    await applyBatch(
      testDb('playbook'),
      [event(accountId, uniqueEmail(), 'a', t(1)), event(accountId, uniqueEmail(), 'a', t(9))],
      cachedAccounts(testDb('playbook'), 0),
    );
    const before = await eventCatalog(testDb('playbook'), accountId);
    expect(before.map((c) => [c.name, c.count, c.firstSeenAt.toISOString(), c.lastSeenAt.toISOString()])).toEqual([
      ['a', 3, t(1), t(9)],
      ['b', 1, t(6), t(6)],
    ]);

    await foldCatalog(testDb('playbook'));
    await foldCatalog(testDb('playbook'));

    expect(await eventCatalog(testDb('playbook'), accountId)).toEqual(before);
    expect(await testDb('playbook').eventNameDelta.count({ where: { accountId } })).toBe(0);
    expect((await testDb('playbook').eventName.findMany({ where: { accountId }, orderBy: { name: 'asc' } })).map((r) => [r.name, Number(r.count)])).toEqual([
      ['a', 3],
      ['b', 1],
    ]);
  });

  it('when the account was deleted before its changes are folded, then they are dropped and the fold goes on', async () => {
    const { accountId } = await createTestAccount();
    await applyBatch(testDb('playbook'), [event(accountId, uniqueEmail(), 'gone')], cachedAccounts(testDb('playbook'), 0));
    await testDb('identity').account.delete({ where: { id: accountId } });
    await foldCatalog(testDb('playbook'));
    expect(await testDb('playbook').eventNameDelta.count({ where: { accountId } })).toBe(0);
  });
});

describe('applyBatch: re-enrollment policies on the real Postgres', () => {
  it('when a once playbook meets a person enrolled in an earlier batch, then a new trigger starts nothing; restart restarts; a redelivery of either changes nothing', async () => {
    const { accountId } = await createTestAccount();
    await seedCatalog(accountId, ['signed_up']);
    const once = await createPlaybook(testDb('playbook'), { accountId, name: 'Once', triggers: ['signed_up'], exits: ['purchase'], reenrollment: 'once' });
    const restart = await createPlaybook(testDb('playbook'), { accountId, name: 'Restart', triggers: ['signed_up'], reenrollment: 'restart' });
    const ada = uniqueEmail('ada');
    const accounts = cachedAccounts(testDb('playbook'), 0);

    await applyBatch(testDb('playbook'), [event(accountId, ada, 'signed_up'), event(accountId, ada, 'purchase')], accounts);
    const again = [event(accountId, ada, 'signed_up')];
    const outcome = await applyBatch(testDb('playbook'), again, accounts);
    expect(outcome.effects.map((e) => [e.playbookId, e.action])).toEqual([
      [restart.id, 'stopped'],
      [restart.id, 'started'],
    ]);
    const after = await stateOf(accountId);
    expect(after.enrollments.filter((e) => e.playbookId === once.id).map((e) => e.status)).toEqual(['stopped']);
    expect(
      after.enrollments
        .filter((e) => e.playbookId === restart.id)
        .map((e) => e.status)
        .sort(),
    ).toEqual(['active', 'stopped']);

    // One receipt per event that opts in: the last says once was left by its policy.
    const receipt = await testDb('playbook').eventReceipt.findUniqueOrThrow({ where: { eventId: again[0]!.eventId } });
    expect(receipt).toMatchObject({
      accountId,
      eventName: 'signed_up',
      changed: [
        { playbookId: restart.id, action: 'stopped' },
        { playbookId: restart.id, action: 'started' },
      ],
      unchanged: [{ playbookId: once.id, reason: 'reenrollment_policy' }],
    });
    const receipts = await testDb('playbook').eventReceipt.count({ where: { accountId } });

    const redelivered = await applyBatch(testDb('playbook'), again, accounts);
    expect(redelivered).toMatchObject({ applied: 0, duplicates: 1 });
    expect(await stateOf(accountId)).toEqual(after);
    expect(await testDb('playbook').eventReceipt.count({ where: { accountId } })).toBe(receipts);
    expect(await testDb('playbook').eventReceipt.findUniqueOrThrow({ where: { eventId: again[0]!.eventId } })).toEqual(receipt);
  });
});
