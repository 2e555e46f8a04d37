// What an event does to playbooks (api.md §4.3 rules 2 and 3), end to end: gateway → events.inbound →
// playbook service → Postgres and playbook.effects, all real.
import { randomUUID } from 'node:crypto';
import { AppError } from '@glimpse/errors';
import { TOPICS, personKey, type InboundEvent } from '@glimpse/messaging';
import type { RunningGateway } from '@glimpse/gateway';
import { createPlaybook, eventCatalog, listEnrollments, listPlaybooks, type RunningPlaybookService } from '@glimpse/playbook';
import {
  closeTestDb,
  createTestAccount,
  postEvent,
  sendNamesOnce,
  startTestGateway,
  startTestPlaybookService,
  testDb,
  uniqueEmail,
  waitFor,
  type TestAccount,
} from '../../../test/support/stack';
import { endOffsets, freshGroupAtEnd, ofAccount, produceRaw, readTopic } from '../../../test/support/kafka-helpers';

let gateway: RunningGateway;
let playbook: RunningPlaybookService;

beforeAll(async () => {
  // Its own group, starting at the end of events.inbound: no backlog from other runs to work through first.
  const groupId = await freshGroupAtEnd(TOPICS.eventsInbound, 'glimpse-playbook-test-effects');
  [gateway, playbook] = await Promise.all([startTestGateway(), startTestPlaybookService({ PLAYBOOK_GROUP_ID: groupId })]);
});

afterAll(async () => {
  await Promise.all([gateway?.stop(), playbook?.stop()]);
  await closeTestDb();
});

async function processedCount(accountId: string): Promise<number> {
  const [row] = await testDb('playbook').$queryRaw<{ n: bigint }[]>`SELECT count(*) AS n FROM processed_events WHERE account_id = ${accountId}::uuid`;
  return Number(row!.n);
}

/** Posts events in order and waits until the playbook service has applied all of them. */
async function send({ accountId, token }: TestAccount, email: string, ...events: string[]): Promise<void> {
  const before = await processedCount(accountId);
  for (const event of events) {
    const res = await postEvent(gateway.url, token, { event, email });
    expect([event, res.status]).toEqual([event, 200]);
  }
  await waitFor(async () => (await processedCount(accountId)) >= before + events.length, { what: `${events.length} event(s) applied` });
}

async function enrollmentsOf(accountId: string, playbookId: string, email: string) {
  return (await listEnrollments(testDb('playbook'), accountId, playbookId))
    .filter((e) => e.email === email)
    .map(({ status, startedBy, stoppedBy }) => ({ status, startedBy, stoppedBy }));
}

async function effectRows(accountId: string) {
  return testDb('playbook').playbookEffect.findMany({ where: { accountId }, orderBy: [{ at: 'asc' }, { action: 'desc' }] });
}

describe('event effects on playbooks', () => {
  it('when an event names a playbook trigger, then the person gets an active enrollment', async () => {
    const account = await createTestAccount();
    await sendNamesOnce(gateway.url, account, ['demo_booked']);
    const pb = await createPlaybook(testDb('playbook'), { accountId: account.accountId, name: 'Demo follow-up', triggers: ['demo_booked'] });
    const email = uniqueEmail();

    await send(account, email, 'demo_booked');

    expect(await enrollmentsOf(account.accountId, pb.id, email)).toEqual([{ status: 'active', startedBy: 'demo_booked', stoppedBy: null }]);
  });

  it('when an event names the exit of a playbook the person is in, then that enrollment stops', async () => {
    const account = await createTestAccount();
    await sendNamesOnce(gateway.url, account, ['signed_up']);
    const pb = await createPlaybook(testDb('playbook'), { accountId: account.accountId, name: 'Onboarding', triggers: ['signed_up'], exits: ['purchase'] });
    const email = uniqueEmail();
    await send(account, email, 'signed_up');

    await send(account, email, 'purchase');

    expect(await enrollmentsOf(account.accountId, pb.id, email)).toEqual([{ status: 'stopped', startedBy: 'signed_up', stoppedBy: 'purchase' }]);
  });

  it('when one event exits one playbook and triggers another, then it does both', async () => {
    const account = await createTestAccount();
    await sendNamesOnce(gateway.url, account, ['signed_up', 'demo_booked']);
    const nurture = await createPlaybook(testDb('playbook'), {
      accountId: account.accountId,
      name: 'Nurture',
      triggers: ['signed_up'],
      exits: ['demo_booked'],
    });
    const demo = await createPlaybook(testDb('playbook'), { accountId: account.accountId, name: 'Demo prep', triggers: ['demo_booked'] });
    const email = uniqueEmail();
    await send(account, email, 'signed_up');

    await send(account, email, 'demo_booked');

    expect(await enrollmentsOf(account.accountId, nurture.id, email)).toEqual([{ status: 'stopped', startedBy: 'signed_up', stoppedBy: 'demo_booked' }]);
    expect(await enrollmentsOf(account.accountId, demo.id, email)).toEqual([{ status: 'active', startedBy: 'demo_booked', stoppedBy: null }]);
  });

  it('when a name is both the exit and the trigger of a playbook the person is in, then the old enrollment stops and a new one starts', async () => {
    const account = await createTestAccount();
    await sendNamesOnce(gateway.url, account, ['form_submitted']);
    const pb = await createPlaybook(testDb('playbook'), {
      accountId: account.accountId,
      name: 'Form reply',
      triggers: ['form_submitted'],
      exits: ['form_submitted'],
    });
    const email = uniqueEmail();
    await send(account, email, 'form_submitted');

    await send(account, email, 'form_submitted');

    expect(await enrollmentsOf(account.accountId, pb.id, email)).toEqual([
      { status: 'stopped', startedBy: 'form_submitted', stoppedBy: 'form_submitted' },
      { status: 'active', startedBy: 'form_submitted', stoppedBy: null },
    ]);
    expect((await effectRows(account.accountId)).map((e) => e.action)).toEqual(['started', 'stopped', 'started']);
  });

  it('when a playbook has not opted in to a name, then events of that name leave it untouched', async () => {
    const account = await createTestAccount();
    await sendNamesOnce(gateway.url, account, ['signed_up', 'demo_booked']);
    const onboarding = await createPlaybook(testDb('playbook'), {
      accountId: account.accountId,
      name: 'Onboarding',
      triggers: ['signed_up'],
      exits: ['unsubscribed'],
    });
    const demo = await createPlaybook(testDb('playbook'), { accountId: account.accountId, name: 'Demo prep', triggers: ['demo_booked'], exits: ['purchase'] });
    const email = uniqueEmail();
    await send(account, email, 'signed_up');

    // demo_booked starts Demo prep only; purchase stops Demo prep only; Onboarding opted in to neither.
    await send(account, email, 'demo_booked', 'purchase');

    expect(await enrollmentsOf(account.accountId, onboarding.id, email)).toEqual([{ status: 'active', startedBy: 'signed_up', stoppedBy: null }]);
    expect(await enrollmentsOf(account.accountId, demo.id, email)).toEqual([{ status: 'stopped', startedBy: 'demo_booked', stoppedBy: 'purchase' }]);
  });

  it('when a trigger arrives again while the person is active, then nothing new starts', async () => {
    const account = await createTestAccount();
    await sendNamesOnce(gateway.url, account, ['demo_booked']);
    const pb = await createPlaybook(testDb('playbook'), { accountId: account.accountId, name: 'Demo follow-up', triggers: ['demo_booked'] });
    const email = uniqueEmail();
    await send(account, email, 'demo_booked');

    await send(account, email, 'demo_booked');

    expect(await enrollmentsOf(account.accountId, pb.id, email)).toEqual([{ status: 'active', startedBy: 'demo_booked', stoppedBy: null }]);
    expect((await effectRows(account.accountId)).map((e) => e.action)).toEqual(['started']);
  });
});

describe('rule 3: triggers come from the catalog', () => {
  it('when a playbook would be triggered by a name never sent, then it is refused with unknown_event_name and nothing is created', async () => {
    const account = await createTestAccount();
    await sendNamesOnce(gateway.url, account, ['signed_up']);

    const attempt = createPlaybook(testDb('playbook'), { accountId: account.accountId, name: 'Too early', triggers: ['signed_up', 'never_sent_yet'] });

    await expect(attempt).rejects.toBeInstanceOf(AppError);
    await expect(attempt).rejects.toMatchObject({ code: 'unknown_event_name', status: 422, message: expect.stringContaining('never_sent_yet') });
    expect(await listPlaybooks(testDb('playbook'), account.accountId)).toEqual([]);
  });

  it('when a playbook exits on a name never sent, then it is created, and the name stops it once it is sent', async () => {
    const account = await createTestAccount();
    await sendNamesOnce(gateway.url, account, ['signed_up']);

    const pb = await createPlaybook(testDb('playbook'), { accountId: account.accountId, name: 'Onboarding', triggers: ['signed_up'], exits: ['churned'] });

    expect(pb).toMatchObject({ triggers: ['signed_up'], exits: ['churned'] });
    expect((await listPlaybooks(testDb('playbook'), account.accountId)).map((p) => p.id)).toEqual([pb.id]);
    const email = uniqueEmail();
    await send(account, email, 'signed_up', 'churned');
    expect(await enrollmentsOf(account.accountId, pb.id, email)).toEqual([{ status: 'stopped', startedBy: 'signed_up', stoppedBy: 'churned' }]);
  });
});

describe('effects on playbook.effects', () => {
  it('when an event starts and another stops a playbook, then both effects are published with exactly the effect fields and no properties', async () => {
    const account = await createTestAccount();
    await sendNamesOnce(gateway.url, account, ['signed_up']);
    const pb = await createPlaybook(testDb('playbook'), { accountId: account.accountId, name: 'Onboarding', triggers: ['signed_up'], exits: ['purchase'] });
    const email = uniqueEmail();
    const marker = `private-${randomUUID()}`;
    const before = await endOffsets(TOPICS.playbookEffects);

    await send(account, email, 'signed_up');
    const res = await postEvent(gateway.url, account.token, { event: 'purchase', email, properties: { note: marker, amount: 99 } });
    expect(res.status).toBe(200);

    const published = await readTopic(TOPICS.playbookEffects, { from: before, until: (read) => ofAccount(read, account.accountId).length >= 2 });
    const mine = ofAccount(published, account.accountId);
    const rows = await effectRows(account.accountId);
    expect(rows).toHaveLength(2);
    expect(mine.map((m) => m.json)).toEqual(
      rows.map((r) => ({
        effectId: r.id,
        eventId: r.eventId,
        accountId: account.accountId,
        playbookId: pb.id,
        email,
        action: r.action,
        at: r.at.toISOString(),
      })),
    );
    expect(mine.map((m) => m.json.action)).toEqual(['started', 'stopped']);
    for (const m of mine) {
      expect(Object.keys(m.json).sort()).toEqual(['accountId', 'action', 'at', 'effectId', 'email', 'eventId', 'playbookId']);
      expect(m.key).toBe(personKey(account.accountId, email));
      expect(m.value).not.toContain(marker);
      expect(m.value).not.toContain('properties');
    }
    await waitFor(async () => (await effectRows(account.accountId)).every((r) => r.publishedAt !== null), { what: 'effects marked published' });
  });
});

describe('dead letters', () => {
  const inbound = (accountId: string, email: string, event: string): InboundEvent => ({
    eventId: randomUUID(),
    accountId,
    event,
    email,
    properties: {},
    receivedAt: new Date().toISOString(),
  });

  it('when a message on events.inbound fails validation, then it goes to the dead-letter topic and the events behind it are still applied', async () => {
    const account = await createTestAccount();
    await sendNamesOnce(gateway.url, account, ['demo_booked']);
    const pb = await createPlaybook(testDb('playbook'), { accountId: account.accountId, name: 'Demo follow-up', triggers: ['demo_booked'] });
    const email = uniqueEmail();
    const key = personKey(account.accountId, email);
    const notJson = `{"accountId":"${account.accountId}", truncated`;
    const badSchema = JSON.stringify({ ...inbound(account.accountId, email, 'demo booked'), eventId: 'not-a-uuid' });
    const good = inbound(account.accountId, email, 'demo_booked');
    const dlqBefore = await endOffsets(TOPICS.eventsDeadLetter);
    const processedBefore = await processedCount(account.accountId);

    // One send, one key: all three land on the same partition, in this order.
    await produceRaw(TOPICS.eventsInbound, [
      { key, value: notJson },
      { key, value: badSchema },
      { key, value: JSON.stringify(good) },
    ]);

    await waitFor(async () => (await processedCount(account.accountId)) > processedBefore, { what: 'the valid event behind the invalid ones applied' });
    expect(await enrollmentsOf(account.accountId, pb.id, email)).toEqual([{ status: 'active', startedBy: 'demo_booked', stoppedBy: null }]);
    const dead = ofAccount(
      await readTopic(TOPICS.eventsDeadLetter, { from: dlqBefore, until: (read) => ofAccount(read, account.accountId).length >= 2 }),
      account.accountId,
    );
    expect(dead.map((m) => [m.key, m.value])).toEqual([
      [key, notJson],
      [key, badSchema],
    ]);
    for (const m of dead) {
      expect(m.headers).toMatchObject({
        'x-source-topic': TOPICS.eventsInbound,
        'x-source-partition': expect.stringMatching(/^\d+$/),
        'x-source-offset': expect.stringMatching(/^\d+$/),
      });
      expect(m.headers['x-reason']).toBeTruthy();
    }
    expect(dead[0]!.headers['x-reason']).toBe('not JSON');
    expect(dead[1]!.headers['x-reason']).toMatch(/eventId/);
    expect((await eventCatalog(testDb('playbook'), account.accountId)).find((e) => e.name === 'demo_booked')?.count).toBe(2);
  });
});
