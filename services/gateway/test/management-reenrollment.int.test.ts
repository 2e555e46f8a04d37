// Re-enrollment policies end to end: set through the management API, applied by the playbook
// consumer to events posted to the gateway (gateway → Kafka → playbook service → Postgres).
import { closeTestDb, postEvent, sendNamesOnce, startManagementStack, testDb, uniqueEmail, waitFor } from '../../../test/support/stack';
import { api, createManager } from './management-helpers';

let stack: Awaited<ReturnType<typeof startManagementStack>>;
beforeAll(async () => {
  stack = await startManagementStack();
});
afterAll(async () => {
  await stack?.stop();
  await closeTestDb();
});

async function processed(accountId: string): Promise<number> {
  return testDb('playbook').processedEvent.count({ where: { accountId } });
}

describe('management API: re-enrollment policy', () => {
  it('when a playbook is created without a policy, then it is when_inactive; a patch changes it; a bad one is 400 and changes nothing', async () => {
    const manager = await createManager();
    const client = api(stack.gateway.url, manager.key);
    const created = await client.post('/account/playbooks', { name: 'Welcome' });
    expect(created.body.reenrollment).toBe('when_inactive');
    const once = await client.post('/account/playbooks', { name: 'Once', reenrollment: 'once' });
    expect([once.status, once.body.reenrollment]).toEqual([201, 'once']);

    const patched = await client.patch(`/account/playbooks/${created.body.id}`, { reenrollment: 'restart' });
    expect(patched.body).toMatchObject({ name: 'Welcome', reenrollment: 'restart' });
    expect((await client.get(`/account/playbooks/${created.body.id}`)).body.reenrollment).toBe('restart');

    const bad = await client.patch(`/account/playbooks/${created.body.id}`, { reenrollment: 'sometimes' });
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ error: 'invalid_request', message: 'reenrollment must be one of once, when_inactive, restart' });
    expect((await client.post('/account/playbooks', { name: 'Bad', reenrollment: null })).status).toBe(400);
    expect((await client.get(`/account/playbooks/${created.body.id}`)).body.reenrollment).toBe('restart');
    expect((await client.get('/account/playbooks')).body.items).toHaveLength(2);
  });

  it('when a person is triggered, triggered again, exited and triggered again, then once, when_inactive and restart playbooks enroll them 1, 2 and 3 times', async () => {
    const manager = await createManager();
    const client = api(stack.gateway.url, manager.key);
    await sendNamesOnce(stack.gateway.url, manager, ['signed_up']);
    const ids: Record<string, string> = {};
    for (const policy of ['once', 'when_inactive', 'restart']) {
      const res = await client.post('/account/playbooks', { name: policy, triggers: ['signed_up'], exits: ['purchase'], reenrollment: policy });
      expect(res.status).toBe(201);
      ids[policy] = res.body.id;
    }
    const email = uniqueEmail('policy');
    const before = await processed(manager.accountId);
    for (const event of ['signed_up', 'signed_up', 'purchase', 'signed_up']) {
      expect((await postEvent(stack.gateway.url, manager.token, { event, email })).status).toBe(200);
    }
    await waitFor(async () => (await processed(manager.accountId)) >= before + 4, { what: 'the four events applied' });

    const enrollments = async (policy: string) =>
      (
        (await client.get(`/account/playbooks/${ids[policy]}/enrollments`)).body.items as {
          email: string;
          status: string;
          startedBy: string;
          stoppedBy: string | null;
        }[]
      )
        .filter((e) => e.email === email)
        .map((e) => [e.status, e.stoppedBy])
        .sort();
    expect(await enrollments('once')).toEqual([['stopped', 'purchase']]);
    expect(await enrollments('when_inactive')).toEqual([
      ['active', null],
      ['stopped', 'purchase'],
    ]);
    // restart: the second signed_up stopped the first enrollment (stopped by the trigger) and started another.
    expect(await enrollments('restart')).toEqual([
      ['active', null],
      ['stopped', 'purchase'],
      ['stopped', 'signed_up'],
    ]);
  });
});
