// Stops that belong to no event, on the real broker and database: a suppression or an erasure
// stops the person's active enrollments, and each stop goes out on playbook.effects with its cause
// (the erasure's under the keyed stand-in, never the email); events of an erased person accepted
// before the erasure and still queued arrive afterwards and are dropped, later ones apply. The
// service runs with an erasure secret of its own, so the stand-in is shown to come from it.
import { randomUUID } from 'node:crypto';
import { DEV_INTERNAL_TOKEN } from '@glimpse/config';
import { INTERNAL_HEADERS } from '@glimpse/http';
import { ERASED_EMAIL_PATTERN, TOPICS, createErasedEmail, type InboundEvent } from '@glimpse/messaging';
import { DEV_ERASURE_KEY, createPlaybook, erasePerson, suppressPerson, type RunningPlaybookService } from '@glimpse/playbook';
import type { RunningGateway } from '@glimpse/gateway';
import { cachedAccounts } from '../src/data/batch-store';
import { applyBatch } from '../src/wiring/batch';
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
} from '../../../test/support/stack';
import { endOffsets, readTopic } from '../../../test/support/kafka-helpers';

let gateway: RunningGateway;
let playbook: RunningPlaybookService;
const SECRET = `person-stops-test-erasure-secret-${randomUUID()}`;
const erasedEmail = createErasedEmail(SECRET);

beforeAll(async () => {
  [gateway, playbook] = await Promise.all([
    startTestGateway(),
    startTestPlaybookService({ PLAYBOOK_EFFECTS_SWEEP_INTERVAL_MS: '200', PLAYBOOK_ERASURE_KEY: SECRET }),
  ]);
});

afterAll(async () => {
  await gateway?.stop();
  await playbook?.stop();
  await closeTestDb();
});

const activeOf = (accountId: string, email: string) => testDb('playbook').enrollment.count({ where: { accountId, email, status: 'active' } });

/** An account with two playbooks triggered by demo_booked and the person enrolled in both. */
async function enrolled(): Promise<{ accountId: string; email: string; playbookIds: string[] }> {
  const account = await createTestAccount('person stops');
  await sendNamesOnce(gateway.url, account, ['demo_booked']);
  const playbookIds: string[] = [];
  for (const name of ['First', 'Second'])
    playbookIds.push((await createPlaybook(testDb('playbook'), { accountId: account.accountId, name, triggers: ['demo_booked'], exits: [] })).id);
  const email = uniqueEmail('stopped');
  expect((await postEvent(gateway.url, account.token, { event: 'demo_booked', email })).status).toBe(200);
  await waitFor(async () => (await activeOf(account.accountId, email)) === 2, { what: 'enrolled in both playbooks' });
  return { accountId: account.accountId, email, playbookIds };
}

describe('stops by suppression and erasure', () => {
  it('when a person is suppressed, then each stopped enrollment is published on playbook.effects with the cause "suppressed"', async () => {
    const { accountId, email, playbookIds } = await enrolled();
    const from = await endOffsets(TOPICS.playbookEffects);

    const { suppression } = await suppressPerson(testDb('playbook'), accountId, email);
    expect(suppression.stoppedEnrollments).toBe(2);

    const ours = (read: { json: unknown }[]) =>
      read.map((m) => m.json as Record<string, unknown>).filter((j) => j?.accountId === accountId && j.cause === 'suppressed');
    const messages = ours(await readTopic(TOPICS.playbookEffects, { from, until: (read) => ours(read).length >= 2 }));
    expect(messages.map((m) => m.playbookId).sort()).toEqual([...playbookIds].sort());
    for (const m of messages)
      expect(m).toMatchObject({ action: 'stopped', email, cause: 'suppressed', effectId: expect.any(String), eventId: expect.any(String) });
    await waitFor(async () => (await testDb('playbook').playbookEffect.count({ where: { accountId, cause: 'suppressed', publishedAt: null } })) === 0, {
      what: 'marked published',
    });
  });

  it('when a person is erased through the service, then the stops go out under its keyed stand-in with the cause "erased", and no message carries the email', async () => {
    const { accountId, email } = await enrolled();
    const from = await endOffsets(TOPICS.playbookEffects);

    const res = await fetch(`${playbook.url}/internal/persons/${encodeURIComponent(email)}`, {
      method: 'DELETE',
      headers: { [INTERNAL_HEADERS.token]: DEV_INTERNAL_TOKEN, [INTERNAL_HEADERS.account]: accountId },
    });
    const counts = (await res.json()) as { stoppedEnrollments: number; replacement: string };
    expect(res.status).toBe(200);
    expect(counts).toEqual({
      stoppedEnrollments: 2,
      hashedEnrollments: 2,
      hashedEffects: 2,
      deletedSuppressions: 0,
      replacement: erasedEmail(accountId, email),
    });
    expect(counts.replacement).toMatch(ERASED_EMAIL_PATTERN);
    expect(counts.replacement).not.toBe(createErasedEmail(DEV_ERASURE_KEY)(accountId, email));

    const read = await readTopic(TOPICS.playbookEffects, {
      from,
      until: (r) => r.filter((m) => (m.json as { cause?: string })?.cause === 'erased' && m.value?.includes(accountId)).length >= 2,
    });
    const erased = read.filter((m) => m.value?.includes(accountId));
    expect(erased.map((m) => m.json)).toEqual([
      expect.objectContaining({ action: 'stopped', cause: 'erased', email: erasedEmail(accountId, email) }),
      expect.objectContaining({ action: 'stopped', cause: 'erased', email: erasedEmail(accountId, email) }),
    ]);
    expect(read.filter((m) => m.value?.includes(email) || m.key?.includes(email))).toEqual([]);
  });

  it('when an event of an erased person was accepted before the erasure and arrives after it, then it is dropped; one accepted after applies', async () => {
    const { accountId, email } = await enrolled();
    const acceptedBefore = new Date().toISOString();
    const counts = await erasePerson(testDb('playbook'), erasedEmail, accountId, email);
    expect(counts.replacement).toBe(erasedEmail(accountId, email));
    expect(await testDb('playbook').erasure.findMany({ where: { accountId }, select: { emailHash: true } })).toEqual([
      { emailHash: erasedEmail(accountId, email) },
    ]);
    const event = (receivedAt: string): InboundEvent => ({ eventId: randomUUID(), accountId, event: 'demo_booked', email, properties: {}, receivedAt });

    const late = await applyBatch(testDb('playbook'), [event(acceptedBefore)], cachedAccounts(testDb('playbook'), 0), new Date(), erasedEmail);
    expect(late).toMatchObject({ applied: 0, erased: 1 });
    expect(await testDb('playbook').enrollment.count({ where: { accountId, email } })).toBe(0);

    const fresh = await applyBatch(
      testDb('playbook'),
      [event(new Date(Date.now() + 1000).toISOString())],
      cachedAccounts(testDb('playbook'), 0),
      new Date(),
      erasedEmail,
    );
    expect(fresh).toMatchObject({ applied: 1, erased: 0 });
    expect(await activeOf(accountId, email)).toBe(2);
  });
});
