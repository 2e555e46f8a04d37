// Playbooks, their enrollments and the event catalog through the gateway's management API (the
// playbook service behind it owns them): rule 3, PATCH semantics, isolation, pagination.
import { randomUUID } from 'node:crypto';
import { closeTestDb, postEvent, startManagementStack, testDb, uniqueEmail, waitFor } from '../../../test/support/stack';
import { ISO_TIME, api, createManager, seedCatalog, seedEnrollment, type Api } from './management-helpers';

let stack: Awaited<ReturnType<typeof startManagementStack>>;
beforeAll(async () => {
  stack = await startManagementStack();
});
afterAll(async () => {
  await stack?.stop();
  await closeTestDb();
});

async function managerWithCatalog(names: string[]): Promise<{ accountId: string; token: string; client: Api }> {
  const manager = await createManager();
  await seedCatalog(manager.accountId, names);
  return { accountId: manager.accountId, token: manager.token, client: api(stack.gateway.url, manager.key) };
}

describe('management API: playbooks', () => {
  it('when a playbook is created with catalog triggers and any exits, then it is 201 and listed and fetched the same', async () => {
    const { client } = await managerWithCatalog(['signed_up', 'demo_booked']);
    const res = await client.post('/account/playbooks', { name: ' Onboarding ', triggers: ['signed_up', 'demo_booked', 'signed_up'], exits: ['purchase'] });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.any(String),
      name: 'Onboarding',
      triggers: ['demo_booked', 'signed_up'],
      exits: ['purchase'],
      reenrollment: 'when_inactive',
      createdAt: expect.stringMatching(ISO_TIME),
      updatedAt: expect.stringMatching(ISO_TIME),
    });
    expect(await client.get(`/account/playbooks/${res.body.id}`)).toMatchObject({ status: 200, body: res.body });
    const minimal = await client.post('/account/playbooks', { name: 'Empty' });
    expect(minimal.body).toMatchObject({ triggers: [], exits: [] });
    expect((await client.get('/account/playbooks')).body).toEqual({ items: [res.body, minimal.body] });
  });

  it('when a trigger was never sent (rule 3), then it is 422 unknown_event_name naming the first such trigger, and nothing is created', async () => {
    const { client } = await managerWithCatalog(['signed_up']);
    const res = await client.post('/account/playbooks', { name: 'Nurture', triggers: ['signed_up', 'never_sent', 'also_never'] });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ error: 'unknown_event_name', message: expect.stringContaining('"never_sent"') });
    expect(res.body.message).not.toContain('also_never');
    expect((await client.get('/account/playbooks')).body).toEqual({ items: [] });
  });

  it("when a trigger is only in another account's catalog, then it is still unknown here", async () => {
    const other = await managerWithCatalog(['only_theirs']);
    const { client } = await managerWithCatalog([]);
    expect((await other.client.post('/account/playbooks', { name: 'Theirs', triggers: ['only_theirs'] })).status).toBe(201);
    expect((await client.post('/account/playbooks', { name: 'Mine', triggers: ['only_theirs'] })).status).toBe(422);
  });

  it.each([
    [{ name: '' }, 'name must be 1 to 200 characters'],
    [{ name: 'x'.repeat(201) }, 'name must be 1 to 200 characters'],
    [{}, 'name is required'],
    [{ name: 'x', triggers: ['has space'] }, 'trigger "has space" is not a valid event name'],
    [{ name: 'x', exits: ['x'.repeat(65)] }, 'is not a valid event name'],
    [{ name: 'x', triggers: 'signed_up' }, 'triggers must be an array'],
    [{ name: 'x', enabled: true }, 'unknown field(s): enabled'],
    [[], 'body must be a JSON object'],
    ['{"name":', 'not valid JSON'],
  ])('when a playbook is created from %p, then it is 400 invalid_request', async (body, message) => {
    const { client } = await managerWithCatalog([]);
    const res = await client.post('/account/playbooks', body);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'invalid_request', message: expect.stringContaining(message) });
  });

  it('when a playbook body is not JSON or over 32 KB, then it is 415 or 413', async () => {
    const manager = await createManager();
    const res = await fetch(`${stack.gateway.url}/account/playbooks`, { method: 'POST', headers: { authorization: `Bearer ${manager.key}` }, body: 'name=x' });
    expect(res.status).toBe(415);
    const huge = await api(stack.gateway.url, manager.key).patch(`/account/playbooks/${randomUUID()}`, { name: 'x'.repeat(33 * 1024) });
    expect(huge.status).toBe(413);
    expect(huge.body.error).toBe('payload_too_large');
  });

  it('when a playbook is patched, then only the given fields change, lists replace, and updatedAt moves', async () => {
    const { client } = await managerWithCatalog(['signed_up', 'demo_booked']);
    const created = (await client.post('/account/playbooks', { name: 'Nurture', triggers: ['signed_up'], exits: ['purchase'] })).body;
    await new Promise((r) => setTimeout(r, 5));

    const renamed = await client.patch(`/account/playbooks/${created.id}`, { name: 'Nurture v2' });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toEqual({ ...created, name: 'Nurture v2', updatedAt: expect.stringMatching(ISO_TIME) });
    expect(Date.parse(renamed.body.updatedAt)).toBeGreaterThan(Date.parse(created.updatedAt));

    // Opting in to demo_booked, out of purchase: the lists are replaced as given.
    const optedIn = await client.patch(`/account/playbooks/${created.id}`, { triggers: ['signed_up', 'demo_booked'], exits: [] });
    expect(optedIn.body).toMatchObject({ name: 'Nurture v2', triggers: ['demo_booked', 'signed_up'], exits: [] });
    expect((await client.patch(`/account/playbooks/${created.id}`, {})).body).toEqual(optedIn.body);
    expect((await client.get(`/account/playbooks/${created.id}`)).body).toMatchObject({ triggers: ['demo_booked', 'signed_up'], exits: [] });
  });

  it('when a patch adds a trigger never sent (rule 3), then it is 422 naming it and the playbook is unchanged', async () => {
    const { client } = await managerWithCatalog(['signed_up']);
    const created = (await client.post('/account/playbooks', { name: 'Nurture', triggers: ['signed_up'] })).body;
    const res = await client.patch(`/account/playbooks/${created.id}`, { name: 'Changed', triggers: ['signed_up', 'quote_requested'] });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ error: 'unknown_event_name', message: expect.stringContaining('"quote_requested"') });
    expect((await client.get(`/account/playbooks/${created.id}`)).body).toEqual(created);
  });

  it.each([
    [{ triggers: ['bad name'] }, 'is not a valid event name'],
    [{ name: '   ' }, 'name must be 1 to 200 characters'],
    [{ exits: 'purchase' }, 'exits must be an array'],
    [{ status: 'paused' }, 'unknown field(s): status'],
    [{ reenrollment: 'twice' }, 'reenrollment must be one of once, when_inactive, restart'],
  ])('when a patch is %p, then it is 400 invalid_request', async (body, message) => {
    const { client } = await managerWithCatalog([]);
    const created = (await client.post('/account/playbooks', { name: 'Nurture' })).body;
    const res = await client.patch(`/account/playbooks/${created.id}`, body);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'invalid_request', message: expect.stringContaining(message) });
  });

  it('when a playbook is deleted, then it is 204, gone, and its enrollments with it', async () => {
    const { accountId, client } = await managerWithCatalog(['signed_up']);
    const created = (await client.post('/account/playbooks', { name: 'Nurture', triggers: ['signed_up'] })).body;
    await seedEnrollment(accountId, created.id, { email: uniqueEmail(), startedAt: new Date() });

    const res = await client.del(`/account/playbooks/${created.id}`);
    expect(res.status).toBe(204);
    expect(res.body).toBe('');
    expect((await client.get(`/account/playbooks/${created.id}`)).status).toBe(404);
    expect((await client.get(`/account/playbooks/${created.id}/enrollments`)).status).toBe(404);
    expect(await testDb('playbook').enrollment.count({ where: { playbookId: created.id } })).toBe(0);
    expect((await client.del(`/account/playbooks/${created.id}`)).status).toBe(404);
  });

  it("when another account's playbook, an unknown id or a malformed id is used, then every playbook call is 404 and nothing changes", async () => {
    const owner = await managerWithCatalog(['signed_up']);
    const intruder = await managerWithCatalog(['signed_up']);
    const theirs = (await owner.client.post('/account/playbooks', { name: 'Theirs', triggers: ['signed_up'] })).body;
    await seedEnrollment(owner.accountId, theirs.id, { email: uniqueEmail(), startedAt: new Date() });

    for (const id of [theirs.id, randomUUID(), 'not-a-uuid']) {
      for (const res of [
        await intruder.client.get(`/account/playbooks/${id}`),
        await intruder.client.patch(`/account/playbooks/${id}`, { name: 'Mine now' }),
        await intruder.client.del(`/account/playbooks/${id}`),
        await intruder.client.get(`/account/playbooks/${id}/enrollments`),
      ]) {
        expect(res.status).toBe(404);
        expect(res.body).toEqual({ error: 'not_found', message: expect.any(String) });
      }
    }
    expect((await intruder.client.get('/account/playbooks')).body).toEqual({ items: [] });
    expect((await owner.client.get(`/account/playbooks/${theirs.id}`)).body).toEqual(theirs);
    expect((await owner.client.get(`/account/playbooks/${theirs.id}/enrollments`)).body.items).toHaveLength(1);
  });
});

describe('management API: enrollments', () => {
  async function playbookWithEnrollments() {
    const { accountId, client } = await managerWithCatalog(['signed_up']);
    const playbook = (await client.post('/account/playbooks', { name: 'Onboarding', triggers: ['signed_up'] })).body;
    const base = Date.now() - 60_000;
    const tie = new Date(base + 3000);
    // Seven enrollments, three of them started in the same millisecond (ties break on id).
    const starts = [new Date(base), new Date(base + 1000), new Date(base + 2000), tie, tie, tie, new Date(base + 4000)];
    const rows = [];
    for (const [i, startedAt] of starts.entries()) {
      rows.push(await seedEnrollment(accountId, playbook.id, { email: uniqueEmail(`p${i}`), startedAt, status: i % 3 === 0 ? 'stopped' : 'active' }));
    }
    const newestFirst = [...rows].sort((a, b) => b.startedAt.getTime() - a.startedAt.getTime() || (b.id < a.id ? -1 : b.id > a.id ? 1 : 0));
    return { client, playbook, newestFirst };
  }

  async function walk(client: Api, path: string, limit: number) {
    const ids: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const sep = path.includes('?') ? '&' : '?';
      const res = await client.get(`${path}${sep}limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`);
      expect(res.status).toBe(200);
      expect(res.body.items.length).toBeLessThanOrEqual(limit);
      ids.push(...res.body.items.map((e: { id: string }) => e.id));
      cursor = res.body.nextCursor;
      pages += 1;
    } while (cursor !== null && pages < 50);
    return { ids, pages };
  }

  it('when enrollments are listed, then each has its fields, newest first, with no next page under the default limit', async () => {
    const { client, playbook, newestFirst } = await playbookWithEnrollments();
    const res = await client.get(`/account/playbooks/${playbook.id}/enrollments`);
    expect(res.status).toBe(200);
    expect(res.body.nextCursor).toBeNull();
    expect(res.body.items.map((e: { id: string }) => e.id)).toEqual(newestFirst.map((e) => e.id));
    const stopped = newestFirst.find((e) => e.status === 'stopped')!;
    expect(res.body.items.find((e: { id: string }) => e.id === stopped.id)).toEqual({
      id: stopped.id,
      email: stopped.email,
      status: 'stopped',
      startedAt: stopped.startedAt.toISOString(),
      startedBy: 'signed_up',
      stoppedAt: stopped.stoppedAt!.toISOString(),
      stoppedBy: 'purchase',
    });
    const active = res.body.items.find((e: { status: string }) => e.status === 'active');
    expect(active).toMatchObject({ stoppedAt: null, stoppedBy: null, startedBy: 'signed_up' });
  });

  it.each([[1], [2], [3], [7]])('when enrollments are walked %i at a time with the cursor, then every one comes exactly once, in order', async (limit) => {
    const { client, playbook, newestFirst } = await playbookWithEnrollments();
    const { ids, pages } = await walk(client, `/account/playbooks/${playbook.id}/enrollments`, limit);
    expect(ids).toEqual(newestFirst.map((e) => e.id));
    expect(pages).toBe(limit === 7 ? 1 : Math.ceil(7 / limit));
  });

  it('when enrollments are filtered by status, then only that status is listed, across pages', async () => {
    const { client, playbook, newestFirst } = await playbookWithEnrollments();
    for (const status of ['active', 'stopped'] as const) {
      const { ids } = await walk(client, `/account/playbooks/${playbook.id}/enrollments?status=${status}`, 2);
      expect(ids).toEqual(newestFirst.filter((e) => e.status === status).map((e) => e.id));
    }
  });

  it.each([
    ['status=paused', 'status must be active or stopped'],
    ['limit=0', 'limit must be an integer from 1 to 200'],
    ['limit=201', 'limit must be an integer from 1 to 200'],
    ['limit=abc', 'limit must be an integer from 1 to 200'],
    ['cursor=not-a-cursor!', 'cursor is not valid'],
    [`cursor=${Buffer.from('yesterday|x').toString('base64url')}`, 'cursor is not valid'],
    ['order=asc', 'unknown query parameter "order"'],
    ['limit=1&limit=2', '"limit" must be given once'],
  ])('when the query is %s, then it is 400 invalid_request', async (query, message) => {
    const { client, playbook } = await playbookWithEnrollments();
    const res = await client.get(`/account/playbooks/${playbook.id}/enrollments?${query}`);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'invalid_request', message: expect.stringContaining(message) });
  });
});

describe('management API: event catalog', () => {
  it('when names have been sent, then the catalog lists each with its counts and the playbooks it triggers and exits', async () => {
    const manager = await createManager();
    const client = api(stack.gateway.url, manager.key);
    for (const name of ['signed_up', 'signed_up', 'demo_booked']) {
      expect((await postEvent(stack.gateway.url, manager.token, { event: name, email: uniqueEmail() })).status).toBe(200);
    }
    const sent = await waitFor(
      async () => {
        const items = (await client.get('/account/events/catalog')).body.items as { name: string; count: number }[];
        return items.length === 2 && items.find((i) => i.name === 'signed_up')?.count === 2 && items;
      },
      { what: 'both names in the catalog' },
    );
    expect(sent.map((i) => i.name)).toEqual(['demo_booked', 'signed_up']);

    const a = (await client.post('/account/playbooks', { name: 'A', triggers: ['signed_up'], exits: ['demo_booked'] })).body;
    const b = (await client.post('/account/playbooks', { name: 'B', triggers: ['signed_up', 'demo_booked'] })).body;
    await client.post('/account/playbooks', { name: 'C', exits: ['purchase'] });

    const res = await client.get('/account/events/catalog');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      items: [
        {
          name: 'demo_booked',
          firstSeenAt: expect.stringMatching(ISO_TIME),
          lastSeenAt: expect.stringMatching(ISO_TIME),
          count: 1,
          triggers: [{ id: b.id, name: 'B' }],
          exits: [{ id: a.id, name: 'A' }],
        },
        {
          name: 'signed_up',
          firstSeenAt: expect.stringMatching(ISO_TIME),
          lastSeenAt: expect.stringMatching(ISO_TIME),
          count: 2,
          triggers: [
            { id: a.id, name: 'A' },
            { id: b.id, name: 'B' },
          ],
          exits: [],
        },
      ],
      nextCursor: null,
      names: 2,
      maxNames: 1000,
      full: false,
      refused: null,
    });
  });

  it('when an account has sent nothing, then its catalog is empty, whatever other accounts sent', async () => {
    await managerWithCatalog(['somebody_elses']);
    const { client } = await managerWithCatalog([]);
    expect(await client.get('/account/events/catalog')).toMatchObject({ status: 200, body: { items: [] } });
  });
});
