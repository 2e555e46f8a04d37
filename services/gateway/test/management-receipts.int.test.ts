// Receipts end to end: events posted to the gateway (X-Event-Id), applied by the real consumer,
// then GET /account/events/{eventId} through the management API.
import { closeTestDb, postEvent, request, sendNamesOnce, startManagementStack, testDb, uniqueEmail, waitFor } from '../../../test/support/stack';
import { ISO_TIME, api, createManager, type Api, type Manager } from './management-helpers';

let stack: Awaited<ReturnType<typeof startManagementStack>>;
beforeAll(async () => {
  stack = await startManagementStack({}, { webhooks: true });
});
afterAll(async () => {
  await stack?.stop();
  await closeTestDb();
});

/** Posts one event and waits until it is applied; its X-Event-Id. */
async function send(manager: Manager, email: string, event: string, properties: Record<string, string> = {}): Promise<string> {
  const res = await postEvent(stack.gateway.url, manager.token, { event, email, properties });
  expect(res.status).toBe(200);
  const eventId = res.headers.get('x-event-id')!;
  await waitFor(async () => (await testDb('playbook').processedEvent.count({ where: { eventId } })) === 1, { what: 'the event applied' });
  return eventId;
}

async function setUp() {
  const manager = await createManager();
  const client = api(stack.gateway.url, manager.key);
  await sendNamesOnce(stack.gateway.url, manager, ['signed_up']);
  const create = async (body: object) => (await client.post('/account/playbooks', body)).body.id as string;
  const ids = {
    welcome: await create({ name: 'Welcome', triggers: ['signed_up'], exits: ['purchase'] }),
    once: await create({ name: 'Once', triggers: ['signed_up'], exits: ['purchase'], reenrollment: 'once' }),
    restart: await create({ name: 'Restart', triggers: ['signed_up'], reenrollment: 'restart' }),
  };
  return { manager, client, ids };
}

const receipt = (client: Api, eventId: string) => client.get(`/account/events/${eventId}`);

describe('management API: event receipts', () => {
  it('when events start, stop, restart and leave playbooks, then each receipt says which and why, with no property value', async () => {
    const { manager, client, ids } = await setUp();
    const email = uniqueEmail('receipt');
    const first = await send(manager, email, 'signed_up', { secret_note: 'do-not-leak' });
    const r1 = await receipt(client, first);
    expect(r1.status).toBe(200);
    expect(r1.body).toEqual({
      eventId: first,
      event: 'signed_up',
      appliedAt: expect.stringMatching(ISO_TIME),
      started: expect.arrayContaining([
        { id: ids.welcome, name: 'Welcome' },
        { id: ids.once, name: 'Once' },
        { id: ids.restart, name: 'Restart' },
      ]),
      stopped: [],
      unchanged: [],
      personErased: false,
    });
    expect(JSON.stringify(r1.body)).not.toContain('do-not-leak');
    expect(JSON.stringify(r1.body)).not.toContain(email);

    const second = await send(manager, email, 'signed_up');
    expect((await receipt(client, second)).body).toMatchObject({
      started: [{ id: ids.restart, name: 'Restart' }],
      stopped: [{ id: ids.restart, name: 'Restart' }],
      unchanged: expect.arrayContaining([
        { id: ids.welcome, name: 'Welcome', reason: 'already_active' },
        { id: ids.once, name: 'Once', reason: 'already_active' },
      ]),
    });
    const exit = await send(manager, email, 'purchase');
    expect((await receipt(client, exit)).body).toMatchObject({
      stopped: expect.arrayContaining([
        { id: ids.welcome, name: 'Welcome' },
        { id: ids.once, name: 'Once' },
      ]),
      started: [],
      unchanged: [],
    });
    const third = await send(manager, email, 'signed_up');
    expect((await receipt(client, third)).body).toMatchObject({ unchanged: [{ id: ids.once, name: 'Once', reason: 'reenrollment_policy' }] });

    // A stranger's exit: not active. A suppressed person's trigger: suppressed.
    const stranger = await send(manager, uniqueEmail('stranger'), 'purchase');
    expect((await receipt(client, stranger)).body).toMatchObject({
      unchanged: expect.arrayContaining([{ id: ids.welcome, name: 'Welcome', reason: 'not_active' }]),
    });
    const muted = uniqueEmail('muted');
    expect((await client.post('/account/suppressions', { email: muted })).status).toBe(201);
    const mutedEvent = await send(manager, muted, 'signed_up');
    expect((await receipt(client, mutedEvent)).body.unchanged.map((u: { reason: string }) => u.reason)).toEqual(['suppressed', 'suppressed', 'suppressed']);

    // Erasure: the receipt says so; a deleted playbook keeps its id with a null name.
    expect((await client.del(`/account/persons/${encodeURIComponent(email)}`)).status).toBe(200);
    expect((await receipt(client, first)).body.personErased).toBe(true);
    expect((await client.del(`/account/playbooks/${ids.restart}`)).status).toBe(204);
    expect((await receipt(client, first)).body.started).toEqual(expect.arrayContaining([{ id: ids.restart, name: null }]));
  });

  it("when an event opts in to no playbook, then it is applied with nothing to say; an unknown, malformed or other account's id is 404", async () => {
    const { manager, client } = await setUp();
    const plain = await send(manager, uniqueEmail('plain'), 'page_viewed');
    expect((await receipt(client, plain)).body).toEqual({
      eventId: plain,
      event: null,
      appliedAt: expect.stringMatching(ISO_TIME),
      started: [],
      stopped: [],
      unchanged: [],
      personErased: false,
    });
    const mine = await send(manager, uniqueEmail('mine'), 'signed_up');
    const other = api(stack.gateway.url, (await createManager()).key);
    for (const res of [
      await other.get(`/account/events/${mine}`),
      await client.get('/account/events/00000000-0000-4000-8000-000000000000'),
      await client.get('/account/events/not-an-id'),
    ]) {
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ error: 'not_found', message: expect.any(String) });
    }
    // The named routes under /account/events still answer as before.
    expect((await client.get('/account/events/recent')).status).toBe(200);
    expect((await client.get('/account/events/catalog')).status).toBe(200);
  });

  it("when a batch is posted, then each accepted item's id has its receipt", async () => {
    const { manager, client, ids } = await setUp();
    const res = await request(`${stack.gateway.url}/events/batch`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${manager.token}` },
      body: JSON.stringify({
        events: [
          { event: 'signed_up', email: uniqueEmail('b1') },
          { event: 'signed_up', email: uniqueEmail('b2') },
        ],
      }),
    });
    expect(res.status).toBe(200);
    const eventIds = (res.body.results as { eventId: string }[]).map((r) => r.eventId);
    expect(eventIds).toHaveLength(2);
    await waitFor(async () => (await testDb('playbook').processedEvent.count({ where: { eventId: { in: eventIds } } })) === 2, { what: 'the batch applied' });
    for (const id of eventIds) expect((await receipt(client, id)).body.started).toEqual(expect.arrayContaining([{ id: ids.welcome, name: 'Welcome' }]));
  });
});
