// The sites API (/account/sites) through the gateway over HTTP against real Postgres: creation with
// a publishable key and the install snippet, normalised origins, validation, the cap of 50, another
// account's site, and a site key refused on every other endpoint of the API.
import { buildOpenApiDocument } from '@glimpse/api';
import { closeTestDb, startTestGateway, testDb } from '../../../test/support/stack';
import { generateSiteKey } from '../src/domain/site-input';
import { tagAsset } from '../src/tag/tag-asset';
import { ISO_TIME, api, createManager } from './management-helpers';

type Gateway = Awaited<ReturnType<typeof startTestGateway>>;
let gateway: Gateway;
beforeAll(async () => {
  // No visitors service behind it: a deletion must then leave the site in place (503).
  gateway = await startTestGateway({ VISITORS_URL: 'http://127.0.0.1:9' });
});
afterAll(async () => {
  await gateway?.stop();
  await closeTestDb();
});

const someId = '00000000-0000-4000-8000-000000000000';

describe('sites API', () => {
  it('when a site is created, then it has a glp_ key, normalised origins and the install snippet (its per-site script), beside the SRI of the served /g.js', async () => {
    const { key } = await createManager();
    const res = await api(gateway.url, key).post('/account/sites', {
      name: 'Shop',
      origins: ['HTTPS://Shop.Example.com:443/', 'http://localhost:3000'],
      track_events: ['signup'],
    });
    expect(res.status).toBe(201);
    const { integrity } = tagAsset();
    expect(res.body).toEqual({
      id: expect.any(String),
      name: 'Shop',
      key: expect.stringMatching(/^glp_[A-Za-z0-9_-]{32}$/),
      origins: ['https://shop.example.com', 'http://localhost:3000'],
      track_events: ['signup'],
      capture_forms: false,
      consent: 'implied',
      honor_gpc: true,
      query_keys: [],
      identity_verification: 'off',
      new_visitors_per_day: null,
      identity_secret_set: true,
      identity_secret: expect.stringMatching(/^gis_[A-Za-z0-9_-]{43}$/),
      createdAt: expect.stringMatching(ISO_TIME),
      updatedAt: expect.stringMatching(ISO_TIME),
      snippet: { html: expect.any(String), integrity },
    });
    expect(res.body.snippet.html).toBe(`<script async src="${gateway.url}/s/${res.body.key}.js"></script>`);
    const stored = await testDb('identity').site.findUniqueOrThrow({ where: { id: res.body.id } });
    expect(stored.key).toBe(res.body.key);
  });

  it('when sites are listed, read and changed, then the list is newest first and a change replaces the lists', async () => {
    const client = api(gateway.url, (await createManager()).key);
    const first = (await client.post('/account/sites', { name: 'One', origins: ['https://one.test'] })).body;
    const second = (await client.post('/account/sites', { name: 'Two', origins: ['https://two.test'] })).body;
    const list = await client.get('/account/sites');
    expect(list.status).toBe(200);
    expect(list.body.items.map((s: { id: string }) => s.id)).toEqual([second.id, first.id]);
    // The identity secret is answered once, at creation: never by a GET.
    const { identity_secret: secret, ...readable } = first;
    expect(secret).toEqual(expect.any(String));
    expect((await client.get(`/account/sites/${first.id}`)).body).toEqual(readable);
    expect(JSON.stringify(list.body)).not.toContain(secret);

    // The new-visitor cap is set and taken back to the default (null).
    expect((await client.patch(`/account/sites/${second.id}`, { new_visitors_per_day: 5000 })).body.new_visitors_per_day).toBe(5000);
    expect((await testDb('identity').site.findUniqueOrThrow({ where: { id: second.id } })).newVisitorsPerDay).toBe(5000);
    expect((await client.patch(`/account/sites/${second.id}`, { new_visitors_per_day: null })).body.new_visitors_per_day).toBeNull();
    expect((await client.patch(`/account/sites/${second.id}`, { new_visitors_per_day: 0 })).status).toBe(400);

    const changed = await client.patch(`/account/sites/${first.id}`, { origins: ['https://www.one.test', 'https://one.test'], track_events: ['buy'] });
    expect(changed.status).toBe(200);
    expect(changed.body).toMatchObject({
      id: first.id,
      name: 'One',
      key: first.key,
      origins: ['https://www.one.test', 'https://one.test'],
      track_events: ['buy'],
    });
    expect((await client.patch(`/account/sites/${first.id}`, { name: 'Renamed' })).body).toMatchObject({ name: 'Renamed', track_events: ['buy'] });
  });

  it.each([
    [{ origins: ['https://a.test'] }, 'name is required'],
    [{ name: 'x', origins: [] }, 'at least one origin'],
    [{ name: 'x', origins: ['https://a.test/path'] }, 'is not an origin'],
    [{ name: 'x', origins: ['ftp://a.test'] }, 'is not an origin'],
    [{ name: 'x', origins: ['https://a.test'], track_events: ['no spaces'] }, 'track event'],
    [{ name: 'x', origins: ['https://a.test'], key: 'glp_mine' }, 'unknown field(s): key'],
  ])('when the body is %j, then it is 400 with a message naming the rule and nothing is created', async (body, message) => {
    const manager = await createManager();
    const res = await api(gateway.url, manager.key).post('/account/sites', body);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'invalid_request', message: expect.stringContaining(message) });
    expect(await testDb('identity').site.count({ where: { accountId: manager.accountId } })).toBe(0);
  });

  it('when the body is not JSON, then it is 415', async () => {
    const raw = await fetch(`${gateway.url}/account/sites`, {
      method: 'POST',
      headers: { authorization: `Bearer ${(await createManager()).key}`, 'content-type': 'text/plain' },
      body: '{}',
    });
    expect(raw.status).toBe(415);
  });

  it('when an account has 50 sites, then a 51st is 409 limit_reached', async () => {
    const manager = await createManager();
    await testDb('identity').site.createMany({
      data: Array.from({ length: 49 }, (_, i) => ({ accountId: manager.accountId, name: `s${i}`, key: generateSiteKey(), origins: ['https://a.test'] })),
    });
    const client = api(gateway.url, manager.key);
    expect((await client.post('/account/sites', { name: 'fiftieth', origins: ['https://a.test'] })).status).toBe(201);
    const over = await client.post('/account/sites', { name: 'too many', origins: ['https://a.test'] });
    expect(over.status).toBe(409);
    expect(over.body).toEqual({ error: 'limit_reached', message: expect.stringContaining('50 sites') });
    expect(await testDb('identity').site.count({ where: { accountId: manager.accountId } })).toBe(50);
  });

  it("when another account's site is read, changed, deleted or its traffic asked, then it is 404 and the site is unchanged", async () => {
    const owner = api(gateway.url, (await createManager()).key);
    const site = (await owner.post('/account/sites', { name: 'Mine', origins: ['https://mine.test'] })).body;
    const other = api(gateway.url, (await createManager()).key);
    for (const res of [
      await other.get(`/account/sites/${site.id}`),
      await other.patch(`/account/sites/${site.id}`, { name: 'Stolen' }),
      await other.del(`/account/sites/${site.id}`),
      await other.get(`/account/sites/${site.id}/traffic`),
      await other.get('/account/sites/not-a-uuid'),
    ]) {
      expect(res.status).toBe(404);
      expect(res.body.error).toBe('not_found');
    }
    expect((await owner.get(`/account/sites/${site.id}`)).body.name).toBe('Mine');
  });

  it('when the visitors service cannot be reached, then a deletion is 503 with Retry-After and the site stays', async () => {
    const client = api(gateway.url, (await createManager()).key);
    const site = (await client.post('/account/sites', { name: 'Kept', origins: ['https://kept.test'] })).body;
    const res = await client.del(`/account/sites/${site.id}`);
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('1');
    expect((await client.get(`/account/sites/${site.id}`)).status).toBe(200);
  });
});

describe('a site key elsewhere', () => {
  const document = buildOpenApiDocument() as { paths: Record<string, Record<string, unknown>> };
  const operations = Object.entries(document.paths)
    .filter(([path]) => path !== '/collect')
    .flatMap(([path, methods]) =>
      Object.keys(methods).map((method) => [method.toUpperCase(), path.replace(/\{visitorId\}/g, 'a'.repeat(24)).replace(/\{[^{}]+\}/g, someId)] as const),
    );

  it('covers the events, both lookups and the management API', () => {
    const paths = operations.map(([, p]) => p);
    for (const p of ['/events', '/visitors/enrichment', `/visitors/${'a'.repeat(24)}/details`, '/account/sites', '/account/api-keys'])
      expect(paths).toContain(p);
  });

  let siteKey: string;
  beforeAll(async () => {
    const { key: manageKey } = await createManager(['account:manage', 'visitors:read', 'enrichment:read']);
    siteKey = (await api(gateway.url, manageKey).post('/account/sites', { name: 'Key', origins: ['https://key.test'] })).body.key;
  });

  it.each(operations)('when %s %s is called with a site key, then it is 401 and nothing else', async (method, path) => {
    const client = api(gateway.url, siteKey);
    const body = method === 'POST' || method === 'PATCH' ? {} : undefined;
    const res =
      method === 'GET'
        ? await client.get(path)
        : method === 'DELETE'
          ? await client.del(path)
          : method === 'POST'
            ? await client.post(path, body)
            : await client.patch(path, body);
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: 'unauthorized', message: expect.any(String) });
  });
});
