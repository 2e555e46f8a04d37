// The workflows add-on, through the real stack: each gated endpoint answered
// with and without the add-on; a removal taking effect within the credential cache window for
// tokens and keys already issued; accepted events still applied; the demo seed. The operator API
// and the CLI through it: operator.int.test.ts here and in tools/cli/test.
import path from 'node:path';
import { createAccount, setWorkflowsAddon } from '@glimpse/auth';
import { listEnrollments } from '@glimpse/playbook';
import { closeTestDb, createTestApiKey, postEvent, request, startManagementStack, testDb, uniqueEmail, waitFor } from '../../../test/support/stack';
import { api, createManager, seedCatalog, type Api } from './management-helpers';
import { testDatabaseUrl } from '../../../test/config';

/** The credential cache window of this gateway: a removal must take effect within it. */
const CACHE_MS = 400;

let stack: Awaited<ReturnType<typeof startManagementStack>>;
beforeAll(async () => {
  stack = await startManagementStack({ AUTH_CACHE_TTL_MS: String(CACHE_MS) }, { visitors: true });
});
afterAll(async () => {
  await stack?.stop();
  await closeTestDb();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const url = () => stack.gateway.url;

const batch = (token: string) =>
  request(`${url()}/events/batch`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({ events: [{ event: 'signed_up', email: uniqueEmail() }] }),
  });

/** Every gated endpoint, called once: what each answered. */
async function gatedCalls(m: Api, token: string): Promise<Record<string, { status: number; body: { error?: string; message?: string } }>> {
  return {
    'POST /events': await postEvent(url(), token, { event: 'signed_up', email: uniqueEmail() }),
    'POST /events/batch': await batch(token),
    'POST /account/event-tokens': await m.post('/account/event-tokens'),
    'GET /account/playbooks': await m.get('/account/playbooks'),
    'POST /account/playbooks': await m.post('/account/playbooks', { name: 'Gated', triggers: ['signed_up'], exits: [] }),
    'GET /account/playbooks/{id}': await m.get('/account/playbooks/00000000-0000-4000-8000-000000000000'),
    'PATCH /account/playbooks/{id}': await m.patch('/account/playbooks/00000000-0000-4000-8000-000000000000', { name: 'x' }),
    'DELETE /account/playbooks/{id}': await m.del('/account/playbooks/00000000-0000-4000-8000-000000000000'),
    'POST /account/events/dry-run': await m.post('/account/events/dry-run', { event: 'signed_up', email: uniqueEmail() }),
    'POST /account/page-rules': await m.post('/account/page-rules', { pattern: '/pricing*', event: 'pricing_viewed' }),
  };
}

describe('the workflows add-on', () => {
  it('without it, every gated endpoint answers 403 addon_required naming the add-on; the rest of the API still works', async () => {
    const m = await createManager();
    await setWorkflowsAddon(testDb('identity'), m.accountId, false);
    const answers = await gatedCalls(api(url(), m.key), m.token);
    for (const [endpoint, res] of Object.entries(answers)) {
      expect({ endpoint, status: res.status, error: res.body.error }).toEqual({ endpoint, status: 403, error: 'addon_required' });
      expect(res.body.message).toMatch(/workflows add-on/);
    }
    // Not gated: the account's credentials can still be listed and revoked, its sites and usage read.
    const manage = api(url(), m.key);
    expect((await manage.get('/account/event-tokens')).status).toBe(200);
    expect((await manage.del(`/account/event-tokens/${m.tokenId}`)).status).toBe(204);
    expect((await manage.get('/account/sites')).status).toBe(200);
    expect((await manage.post('/account/api-keys', { scopes: ['visitors:read'] })).status).toBe(201);
    // A page rule that only scores (a weight, no event) is no workflow: listed, made, re-weighted and deleted.
    const scoring = await manage.post('/account/page-rules', { pattern: '/pricing*', weight: 20 });
    expect(scoring.status).toBe(201);
    expect(scoring.body).toMatchObject({ pattern: '/pricing*', event: null, weight: 20 });
    expect((await manage.patch(`/account/page-rules/${scoring.body.id}`, { weight: 5 })).body).toMatchObject({ weight: 5 });
    expect((await manage.get('/account/page-rules')).body.items).toHaveLength(1);
    expect((await manage.del(`/account/page-rules/${scoring.body.id}`)).status).toBe(204);
  });

  it('with it, every gated endpoint answers as it always did', async () => {
    const m = await createManager();
    await seedCatalog(m.accountId, ['signed_up', 'pricing_viewed']);
    const answers = await gatedCalls(api(url(), m.key), m.token);
    const statuses = Object.fromEntries(Object.entries(answers).map(([k, v]) => [k, v.status]));
    expect(statuses).toEqual({
      'POST /events': 200,
      'POST /events/batch': 200,
      'POST /account/event-tokens': 201,
      'GET /account/playbooks': 200,
      'POST /account/playbooks': 201,
      'GET /account/playbooks/{id}': 404,
      'PATCH /account/playbooks/{id}': 404,
      'DELETE /account/playbooks/{id}': 404,
      'POST /account/events/dry-run': 200,
      'POST /account/page-rules': 201,
    });
  });

  it('when the operator removes it, tokens and keys already issued are refused within the cache window, and events already accepted are still applied', async () => {
    const m = await createManager();
    const manage = api(url(), m.key);
    await seedCatalog(m.accountId, ['signed_up']);
    const created = await manage.post('/account/playbooks', { name: 'Onboarding', triggers: ['signed_up'], exits: [] });
    expect(created.status).toBe(201);
    // Warm the credential cache of both credentials, then accept one more event just before the removal.
    expect((await manage.get('/account/playbooks')).status).toBe(200);
    const email = uniqueEmail('queued');
    expect((await postEvent(url(), m.token, { event: 'signed_up', email })).status).toBe(200);

    await setWorkflowsAddon(testDb('identity'), m.accountId, false);
    const removedAt = Date.now();
    await sleep(CACHE_MS + 50);
    const refusedEvent = await postEvent(url(), m.token, { event: 'signed_up', email: uniqueEmail() });
    const refusedList = await manage.get('/account/playbooks');
    expect(Date.now() - removedAt).toBeLessThan(CACHE_MS + 1000);
    expect([refusedEvent.status, refusedEvent.body.error]).toEqual([403, 'addon_required']);
    expect([refusedList.status, refusedList.body.error]).toEqual([403, 'addon_required']);

    // Nothing queued is lost: the event accepted before the removal still enrolls the person.
    await waitFor(async () => (await listEnrollments(testDb('playbook'), m.accountId, created.body.id)).some((e: { email: string }) => e.email === email), {
      what: 'the event accepted before the removal to be applied',
    });

    // Granted again: working again within the window.
    await setWorkflowsAddon(testDb('identity'), m.accountId, true);
    await sleep(CACHE_MS + 50);
    expect((await postEvent(url(), m.token, { event: 'signed_up', email: uniqueEmail() })).status).toBe(200);
  });

  it('the library grants it by default; without it an account can still get an API key', async () => {
    const without = await createAccount(testDb('identity'), 'no add-on', { workflows: false });
    expect(without.workflows).toBe(false);
    expect((await testDb('identity').account.findUniqueOrThrow({ where: { id: without.id } })).workflows).toBe(false);
    const { key } = await createTestApiKey(without.id, ['account:manage']);
    const res = await api(url(), key).post('/account/event-tokens');
    expect([res.status, res.body.error]).toEqual([403, 'addon_required']);
    expect((await createAccount(testDb('identity'), 'default')).workflows).toBe(true);
  });
});

describe('the demo seed', () => {
  it('gives the demo account the workflows add-on, again if it was removed', async () => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { seedDemo } = require(path.join(__dirname, '..', '..', '..', 'scripts', 'seed-demo.js'));
    const existing = await testDb('identity').account.findFirst({ where: { name: 'Glimpse demo' }, orderBy: { createdAt: 'asc' } });
    if (existing) await setWorkflowsAddon(testDb('identity'), existing.id, false);
    const demo = await seedDemo({ databaseUrl: testDatabaseUrl(), gatewayUrl: url() });
    expect(demo.workflows).toBe(true);
    expect((await testDb('identity').account.findUniqueOrThrow({ where: { id: demo.accountId } })).workflows).toBe(true);
    expect((await postEvent(url(), demo.token, { event: 'signed_up', email: uniqueEmail() })).status).toBe(200);
  }, 120_000);
});
