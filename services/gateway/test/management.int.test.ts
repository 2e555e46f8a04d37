// The management API's credentials and access rules, through the gateway over HTTP: who may call
// it (account:manage), event tokens and API keys, another account's ids, and last use.
import { randomUUID } from 'node:crypto';
import { generateCredential } from '@glimpse/auth';
import { closeTestDb, postEvent, startManagementStack, testDb, waitFor } from '../../../test/support/stack';
import { ISO_TIME, api, createManager } from './management-helpers';

let stack: Awaited<ReturnType<typeof startManagementStack>>;
beforeAll(async () => {
  // No credential cache: a revocation shows on the very next request.
  stack = await startManagementStack({ AUTH_CACHE_TTL_MS: '0' });
});
afterAll(async () => {
  await stack?.stop();
  await closeTestDb();
});

const someId = '00000000-0000-4000-8000-000000000000';
const ENDPOINTS: [string, string, unknown?][] = [
  ['POST', '/account/event-tokens'],
  ['GET', '/account/event-tokens'],
  ['DELETE', `/account/event-tokens/${someId}`],
  ['POST', '/account/api-keys', { scopes: ['visitors:read'] }],
  ['GET', '/account/api-keys'],
  ['DELETE', `/account/api-keys/${someId}`],
  ['GET', '/account/playbooks'],
  ['POST', '/account/playbooks', { name: 'x' }],
  ['GET', `/account/playbooks/${someId}`],
  ['PATCH', `/account/playbooks/${someId}`, { name: 'x' }],
  ['DELETE', `/account/playbooks/${someId}`],
  ['GET', `/account/playbooks/${someId}/enrollments`],
  ['GET', '/account/events/catalog'],
  ['GET', '/account/events/recent'],
  ['GET', '/account/usage'],
];

function call(key: string | undefined, [method, path, body]: [string, string, unknown?]) {
  const client = api(stack.gateway.url, key);
  if (method === 'GET') return client.get(path);
  if (method === 'DELETE') return client.del(path);
  return method === 'POST' ? client.post(path, body) : client.patch(path, body);
}

describe('management API: who may call it', () => {
  it.each(ENDPOINTS)('when %s %s has no credential, then it is 401 unauthorized', async (...endpoint) => {
    const res = await call(undefined, endpoint);
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: 'unauthorized', message: expect.any(String) });
  });

  it.each(ENDPOINTS)('when %s %s is called with a key lacking account:manage, then it is 403 forbidden', async (...endpoint) => {
    const { key } = await createManager(['visitors:read', 'enrichment:read']);
    const res = await call(key, endpoint);
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ error: 'forbidden', message: expect.stringContaining('account:manage') });
  });

  it('when the credential is an event token, an unknown key or a revoked key, then it is 401', async () => {
    const manager = await createManager();
    const client = api(stack.gateway.url, manager.key);
    const created = await client.post('/account/api-keys', { scopes: ['account:manage'] });
    expect((await api(stack.gateway.url, created.body.key).get('/account/api-keys')).status).toBe(200);
    expect((await client.del(`/account/api-keys/${created.body.id}`)).status).toBe(204);

    for (const credential of [manager.token, generateCredential('api_key').plain, created.body.key]) {
      const res = await api(stack.gateway.url, credential).get('/account/playbooks');
      expect(res.status).toBe(401);
      expect(res.body.error).toBe('unauthorized');
    }
  });

  it('when a management path does not exist, then an authorised caller gets 404 not_found', async () => {
    const { key } = await createManager();
    const res = await api(stack.gateway.url, key).get('/account/nothing-here');
    expect(res.status).toBe(404);
    expect(res.body.error).toBe('not_found');
  });
});

describe('management API: event tokens', () => {
  it('when a token is created, then it is shown once and it authenticates POST /events', async () => {
    const { key } = await createManager();
    const client = api(stack.gateway.url, key);
    const res = await client.post('/account/event-tokens');
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.any(String),
      prefix: res.body.token.slice(0, 12),
      token: expect.stringMatching(/^gle_/),
      createdAt: expect.stringMatching(ISO_TIME),
    });

    const listed = (await client.get('/account/event-tokens')).body.items.find((t: { id: string }) => t.id === res.body.id);
    expect(listed).toEqual({ id: res.body.id, prefix: res.body.prefix, createdAt: res.body.createdAt, lastUsedAt: null, revokedAt: null });
    expect(JSON.stringify(listed)).not.toContain(res.body.token);

    expect((await postEvent(stack.gateway.url, res.body.token, { event: 'signed_up', email: 'a@example.com' })).status).toBe(200);
  });

  it('when tokens are listed, then every token of the account is there, newest first, and none of another account', async () => {
    const manager = await createManager();
    const other = await createManager();
    const client = api(stack.gateway.url, manager.key);
    const first = (await client.post('/account/event-tokens')).body;
    const second = (await client.post('/account/event-tokens')).body;
    await api(stack.gateway.url, other.key).post('/account/event-tokens');

    const res = await client.get('/account/event-tokens');
    expect(res.status).toBe(200);
    expect(res.body.items.map((t: { id: string }) => t.id)).toEqual([second.id, first.id, manager.tokenId]);
  });

  it('when a token is revoked, then it answers 204, is listed revoked, stops authenticating, and revoking it again is 204', async () => {
    const { key } = await createManager();
    const client = api(stack.gateway.url, key);
    const { id, token } = (await client.post('/account/event-tokens')).body;

    const res = await client.del(`/account/event-tokens/${id}`);
    expect(res.status).toBe(204);
    expect(res.body).toBe('');
    const listed = (await client.get('/account/event-tokens')).body.items.find((t: { id: string }) => t.id === id);
    expect(listed.revokedAt).toMatch(ISO_TIME);
    expect((await postEvent(stack.gateway.url, token, { event: 'signed_up', email: 'a@example.com' })).status).toBe(401);
    expect((await client.del(`/account/event-tokens/${id}`)).status).toBe(204);
  });

  it("when another account's token, an unknown id or a malformed id is revoked, then it is 404 and the token stays valid", async () => {
    const owner = await createManager();
    const intruder = await createManager();
    const client = api(stack.gateway.url, intruder.key);
    for (const id of [owner.tokenId, randomUUID(), 'not-a-uuid']) {
      const res = await client.del(`/account/event-tokens/${id}`);
      expect(res.status).toBe(404);
      expect(res.body.error).toBe('not_found');
    }
    expect((await testDb('identity').eventToken.findUniqueOrThrow({ where: { id: owner.tokenId } })).revokedAt).toBeNull();
    expect((await postEvent(stack.gateway.url, owner.token, { event: 'signed_up', email: 'a@example.com' })).status).toBe(200);
  });
});

describe('management API: API keys', () => {
  it('when a key is created with scopes, then it is shown once, listed with its scopes, and limited to them', async () => {
    const manager = await createManager();
    const client = api(stack.gateway.url, manager.key);
    const res = await client.post('/account/api-keys', { scopes: ['visitors:read', 'enrichment:read'] });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.any(String),
      prefix: res.body.key.slice(0, 12),
      key: expect.stringMatching(/^glk_/),
      scopes: ['visitors:read', 'enrichment:read'],
      createdAt: expect.stringMatching(ISO_TIME),
    });

    const items = (await client.get('/account/api-keys')).body.items;
    expect(items.map((k: { id: string }) => k.id)).toEqual([res.body.id, manager.keyId]);
    expect(items[0]).toEqual({
      id: res.body.id,
      prefix: res.body.prefix,
      scopes: ['visitors:read', 'enrichment:read'],
      createdAt: res.body.createdAt,
      lastUsedAt: null,
      revokedAt: null,
    });
    expect(JSON.stringify(items)).not.toContain(res.body.key);
    expect((await api(stack.gateway.url, res.body.key).get('/account/api-keys')).status).toBe(403);
  });

  it.each([
    [{}, 'scopes is required'],
    [{ scopes: [] }, 'at least one scope'],
    [{ scopes: ['admin'] }, 'each scope must be one of'],
    [{ scopes: ['visitors:read'], label: 'ci' }, 'unknown field(s): label'],
    ['{"scopes": [', 'not valid JSON'],
  ])('when a key is requested with %p, then it is 400 invalid_request', async (body, message) => {
    const { key } = await createManager();
    const res = await api(stack.gateway.url, key).post('/account/api-keys', body);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'invalid_request', message: expect.stringContaining(message) });
  });

  it('when the body is not JSON or is over 32 KB, then it is 415 or 413', async () => {
    const { key } = await createManager();
    const notJson = await fetch(`${stack.gateway.url}/account/api-keys`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'text/plain' },
      body: 'scopes',
    });
    expect(notJson.status).toBe(415);
    expect(((await notJson.json()) as { error: string }).error).toBe('unsupported_media_type');
    const huge = await api(stack.gateway.url, key).post('/account/api-keys', { scopes: ['visitors:read'], padding: 'x'.repeat(33 * 1024) });
    expect(huge.status).toBe(413);
    expect(huge.body.error).toBe('payload_too_large');
  });

  it("when a key is revoked, then it is 204 and stops working; another account's key is 404 and keeps working", async () => {
    const owner = await createManager();
    const intruder = await createManager();
    const client = api(stack.gateway.url, owner.key);
    const { id, key } = (await client.post('/account/api-keys', { scopes: ['account:manage'] })).body;

    expect((await api(stack.gateway.url, intruder.key).del(`/account/api-keys/${id}`)).status).toBe(404);
    expect((await api(stack.gateway.url, intruder.key).del('/account/api-keys/not-a-uuid')).status).toBe(404);
    expect((await api(stack.gateway.url, key).get('/account/api-keys')).status).toBe(200);

    expect((await client.del(`/account/api-keys/${id}`)).status).toBe(204);
    expect((await client.del(`/account/api-keys/${id}`)).status).toBe(204);
    expect((await api(stack.gateway.url, key).get('/account/api-keys')).status).toBe(401);
    const listed = (await client.get('/account/api-keys')).body.items.find((k: { id: string }) => k.id === id);
    expect(listed.revokedAt).toMatch(ISO_TIME);
  });
});

describe('management API: last use', () => {
  it('when an event token and an API key are used, then their lastUsedAt is set', async () => {
    const manager = await createManager();
    const client = api(stack.gateway.url, manager.key);
    const before = Date.now();
    const { id: tokenId, token } = (await client.post('/account/event-tokens')).body;
    const { id: keyId, key } = (await client.post('/account/api-keys', { scopes: ['account:manage'] })).body;
    expect((await postEvent(stack.gateway.url, token, { event: 'signed_up', email: 'a@example.com' })).status).toBe(200);
    expect((await api(stack.gateway.url, key).get('/account/usage')).status).toBe(200);

    const used = (items: { id: string; lastUsedAt: string | null }[], id: string) => items.find((i) => i.id === id)?.lastUsedAt;
    const tokenUse = await waitFor(async () => used((await client.get('/account/event-tokens')).body.items, tokenId), { what: 'the token lastUsedAt' });
    const keyUse = await waitFor(async () => used((await client.get('/account/api-keys')).body.items, keyId), { what: 'the key lastUsedAt' });
    for (const at of [tokenUse, keyUse]) {
      expect(at).toMatch(ISO_TIME);
      expect(Date.parse(at)).toBeGreaterThanOrEqual(before - 1000);
    }
    // The managing key itself was used by every call above.
    expect(await waitFor(async () => used((await client.get('/account/api-keys')).body.items, manager.keyId))).toMatch(ISO_TIME);
  });
});
