// Segments and alert settings through the gateway with the real visitors and enrichment services,
// on profiles seeded with their scores: create, read, change and delete with strict validation,
// the live count and the members page by page (best score first, an email only when identified),
// a companies segment on industry (the gateway resolves it through enrichment's firmographics),
// the digest settings. Every answer is checked against the OpenAPI document.
import { randomBytes, randomUUID } from 'node:crypto';
import { importCompanies } from '@glimpse/enrichment';
import { createDb } from '@glimpse/db/enrichment';
import type { RunningVisitorsService } from '@glimpse/visitors';
import { serviceDatabaseUrl } from '../../../test/config';
import { closeTestDb, request, startTestEnrichmentService, startTestGateway } from '../../../test/support/stack';
import { startTestVisitorsService } from '../../../test/support/visitors';
import { seedVisitor } from '../../visitors/test/segment-seed';
import { api, createManager, type Api } from './management-helpers';

const tag = randomBytes(4).toString('hex');
const ACME = `acme-${tag}.example`;
const GLOBEX = `globex-${tag}.example`;

let visitors: RunningVisitorsService;
let enrichment: Awaited<ReturnType<typeof startTestEnrichmentService>>;
let gateway: Awaited<ReturnType<typeof startTestGateway>>;

async function* lines(...l: string[]) {
  yield* l;
}

beforeAll(async () => {
  const db = createDb({ databaseUrl: serviceDatabaseUrl('enrichment'), poolSize: 1 });
  try {
    const report = await importCompanies(
      lines(
        JSON.stringify({ domain: ACME, name: 'Acme Ltd', industry: 'Software', size: '51-200', employees: 120 }),
        JSON.stringify({ domain: GLOBEX, name: 'Globex', industry: 'Retail', size: '1001-5000', employees: 2000 }),
      ),
      { db },
    );
    expect(report).toMatchObject({ imported: 2 });
  } finally {
    await db.$disconnect();
  }
  [visitors, enrichment] = await Promise.all([startTestVisitorsService(), startTestEnrichmentService()]);
  gateway = await startTestGateway({ VISITORS_URL: visitors.url, ENRICHMENT_URL: enrichment.url });
});

afterAll(async () => {
  await gateway?.stop();
  await Promise.all([visitors?.stop(), enrichment?.stop()]);
  await closeTestDb();
});

const put = (client: { key: string }, path: string, body: unknown) =>
  request(`${gateway.url}${path}`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${client.key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

/** An account with scored visitors: two identified pricing readers, an anonymous one, a low scorer; companies Acme (two) and Globex (one). */
async function seededAccount(): Promise<{ client: Api; key: string; accountId: string; ids: Record<string, string> }> {
  const manager = await createManager(['account:manage']);
  const site = randomUUID();
  const now = new Date();
  const pricing = [{ path: '/pricing', at: now }];
  const ids = {
    hot: await seedVisitor(manager.accountId, site, {
      score: 90,
      at: now,
      pages: pricing,
      email: `hot-${tag}@example.com`,
      company: { name: 'Acme Ltd', domain: ACME },
    }),
    warm: await seedVisitor(manager.accountId, site, { score: 60, at: now, pages: pricing, email: null, company: { name: 'Acme Ltd', domain: ACME } }),
    mild: await seedVisitor(manager.accountId, site, {
      score: 45,
      at: now,
      pages: pricing,
      email: `mild-${tag}@example.com`,
      company: { name: 'Globex', domain: GLOBEX },
      country: 'FR',
    }),
    cold: await seedVisitor(manager.accountId, site, { score: 5, at: now, pages: [{ path: '/blog', at: now }] }),
  };
  return { client: api(gateway.url, manager.key), key: manager.key, accountId: manager.accountId, ids };
}

it('when segments are created, read, changed and deleted, then each answers with its live count, bad input is a 400 naming the field, and another account sees none', async () => {
  const { client } = await seededAccount();
  for (const [body, field] of [
    [{ name: 'x', kind: 'people', filter: {} }, 'kind'],
    [{ name: 'x', kind: 'visitors', filter: { min_score: 150 } }, 'filter.min_score'],
    [{ name: 'x', kind: 'visitors', filter: { pages: { pattern: 'pricing', within_days: 7 } } }, 'filter.pages.pattern'],
    [{ name: 'x', kind: 'visitors', filter: { colour: 'red' } }, 'filter'],
    [{ name: 'x', kind: 'visitors', filter: {}, alert_window_hours: 0 }, 'alert_window_hours'],
    [{ name: 'x', kind: 'visitors', filter: {}, keys: ['a.example'] }, 'keys'],
    [{ kind: 'visitors', filter: {} }, 'name'],
  ] as const) {
    const r = await client.post('/account/segments', body);
    expect({ body, status: r.status, error: r.body.error }).toEqual({ body, status: 400, error: 'invalid_request' });
    expect(r.body.message).toContain(field);
  }

  const created = await client.post('/account/segments', {
    name: 'Pricing readers',
    kind: 'visitors',
    filter: { min_score: 40, pages: { pattern: '/pricing*', within_days: 7 } },
  });
  expect(created.status).toBe(201);
  expect(created.body).toMatchObject({ name: 'Pricing readers', kind: 'visitors', alert_window_hours: 24, count: 3, evaluated_at: null });
  const id = created.body.id as string;
  expect((await client.post('/account/segments', { name: 'Pricing readers', kind: 'visitors', filter: {} })).status).toBe(400);

  expect((await client.get('/account/segments')).body.items.map((s: { id: string; count: number }) => [s.id, s.count])).toEqual([[id, 3]]);
  const identified = await client.patch(`/account/segments/${id}`, { filter: { min_score: 40, identified: true }, alert_window_hours: 6 });
  expect(identified.status).toBe(200);
  expect(identified.body).toMatchObject({ name: 'Pricing readers', alert_window_hours: 6, count: 2, filter: { min_score: 40, identified: true } });
  expect((await client.patch(`/account/segments/${id}`, { name: '' })).status).toBe(400);
  expect((await client.get(`/account/segments/${id}`)).body).toMatchObject({ id, count: 2 });

  const other = await seededAccount();
  expect((await other.client.get(`/account/segments/${id}`)).status).toBe(404);
  expect((await other.client.del(`/account/segments/${id}`)).status).toBe(404);
  expect((await other.client.get('/account/segments')).body.items).toEqual([]);
  expect((await client.get('/account/segments/not-a-uuid')).status).toBe(404);

  expect((await client.del(`/account/segments/${id}`)).status).toBe(204);
  expect((await client.get(`/account/segments/${id}`)).status).toBe(404);
});

it('when the members are paged, then they come best score first with their scores and reasons, an email only when identified, and the cursor leads to the rest', async () => {
  const { client, ids } = await seededAccount();
  const { body: segment } = await client.post('/account/segments', { name: 'Scored', kind: 'visitors', filter: { min_score: 10 } });
  expect(segment.count).toBe(3);
  const first = await client.get(`/account/segments/${segment.id}/members?limit=2`);
  expect(first.status).toBe(200);
  expect(first.body.items.map((m: { key: string; score: number }) => [m.key, m.score])).toEqual([
    [ids.hot, 90],
    [ids.warm, 60],
  ]);
  expect(first.body.items[0]).toMatchObject({
    kind: 'visitor',
    email: `hot-${tag}@example.com`,
    name: 'Acme Ltd',
    domain: ACME,
    reasons: [{ reason: '90 page views', points: 90 }],
    last_pages: [{ path: '/pricing', title: 'Title of /pricing' }],
    visitors: 1,
  });
  expect(first.body.items[1].email).toBeNull();
  const rest = await client.get(`/account/segments/${segment.id}/members?limit=2&cursor=${encodeURIComponent(first.body.nextCursor)}`);
  expect(rest.body.items.map((m: { key: string }) => m.key)).toEqual([ids.mild]);
  expect(rest.body.nextCursor).toBeNull();
  expect((await client.get(`/account/segments/${segment.id}/members?cursor=nonsense`)).status).toBe(400);
  const french = await client.post('/account/segments', { name: 'French', kind: 'visitors', filter: { country: 'fr' } });
  expect(french.body).toMatchObject({ count: 1, filter: { country: 'FR' } });
});

it("when a companies segment filters on industry, then the gateway resolves it through the firmographics and the company's score sums its visitors'", async () => {
  const { client } = await seededAccount();
  const software = await client.post('/account/segments', { name: 'Software', kind: 'companies', filter: { industry: 'software', min_score: 50 } });
  expect(software.status).toBe(201);
  expect(software.body).toMatchObject({ count: 1, filter: { industry: 'software', min_score: 50 } });
  expect(software.body.filter.keys).toBeUndefined();
  const members = await client.get(`/account/segments/${software.body.id}/members`);
  expect(members.body.items).toEqual([
    expect.objectContaining({ kind: 'company', key: ACME, name: 'Acme Ltd', domain: ACME, email: null, score: 100, visitors: 2 }),
  ]);
  const all = await client.post('/account/segments', { name: 'All companies', kind: 'companies', filter: {} });
  expect(all.body.count).toBe(2);
  const retail = await client.patch(`/account/segments/${all.body.id}`, { filter: { industry: 'Retail' } });
  expect(retail.body.count).toBe(1);
  expect((await client.get(`/account/segments/${all.body.id}/members`)).body.items.map((m: { key: string; score: number }) => [m.key, m.score])).toEqual([
    [GLOBEX, 45],
  ]);
});

it('when the alert settings are read and set, then UTC 9 is the default, an IANA zone and an hour are kept, and anything else is a 400', async () => {
  const { client, key } = await seededAccount();
  expect((await client.get('/account/alert-settings')).body).toEqual({ time_zone: 'UTC', digest_hour: 9 });
  const set = await put({ key }, '/account/alert-settings', { time_zone: 'Europe/Berlin', digest_hour: 7 });
  expect(set.status).toBe(200);
  expect(set.body).toEqual({ time_zone: 'Europe/Berlin', digest_hour: 7 });
  expect((await client.get('/account/alert-settings')).body).toEqual({ time_zone: 'Europe/Berlin', digest_hour: 7 });
  for (const bad of [
    { time_zone: 'Mars/Olympus', digest_hour: 7 },
    { time_zone: 'UTC', digest_hour: 24 },
    { time_zone: 'UTC', digest_hour: 7.5 },
    { time_zone: 'UTC' },
  ]) {
    const r = await put({ key }, '/account/alert-settings', bad);
    expect({ bad, status: r.status, error: r.body.error }).toEqual({ bad, status: 400, error: 'invalid_request' });
  }
});
