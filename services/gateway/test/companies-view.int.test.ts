// The companies view and the details lookup's company fields, through the gateway with the real
// visitors and enrichment services: IP datasets imported as an operator would (a vendor's typed CSV
// ranges, MaxMind's City test database), companies' firmographics imported, page views posted to
// /collect from addresses named by X-Forwarded-For. A business range names the company (with its
// location and firmographics); a home network does not, and its visitor stays anonymous; the list,
// its filters, its CSV and one company's page count them.
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { importCompanies } from '@glimpse/enrichment';
import { createDb } from '@glimpse/db/enrichment';
import { deleteIpDataset, importIpDataset, importLocationFile, type RunningVisitorsService } from '@glimpse/visitors';
import { serviceDatabaseUrl } from '../../../test/config';
import { closeTestDb, request, startTestEnrichmentService, startTestGateway, waitFor } from '../../../test/support/stack';
import { startTestVisitorsService } from '../../../test/support/visitors';
import { api, createManager } from './management-helpers';

const tag = randomBytes(4).toString('hex');
const DATASET = `gw-${tag}`;
const CITY = `gw-${tag}-city`;
const ACME = `acme-${tag}.example`;
const ORIGIN = 'https://companies.example.test';
const DESKTOP = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36';

let visitors: RunningVisitorsService;
let enrichment: Awaited<ReturnType<typeof startTestEnrichmentService>>;
let gateway: Awaited<ReturnType<typeof startTestGateway>>;

async function* lines(...l: string[]) {
  yield* l;
}

beforeAll(async () => {
  const visitorsDb = serviceDatabaseUrl('visitors');
  const ranges = await importIpDataset(
    [
      'start_ip,end_ip,asn,name,domain,type',
      `81.2.69.130,81.2.69.170,64500,Acme Ltd,${ACME},business`,
      '89.160.20.100,89.160.20.127,7922,"Comcast Cable Communications, LLC",,isp',
    ],
    { databaseUrl: visitorsDb, dataset: DATASET, format: 'csv', columns: ['start', 'end', 'asn', 'name', 'domain', 'type'], precedence: 2_000_000_000 },
  );
  expect(ranges).toMatchObject({ imported: 2, skipped: 0 });
  await importLocationFile(path.join(__dirname, '..', '..', 'visitors', 'test', 'fixtures', 'ip-data', 'GeoIP2-City-Test.mmdb'), {
    databaseUrl: visitorsDb,
    dataset: CITY,
  });
  const db = createDb({ databaseUrl: serviceDatabaseUrl('enrichment'), poolSize: 1 });
  try {
    const report = await importCompanies(
      lines(
        JSON.stringify({
          domain: ACME,
          name: 'Acme Ltd',
          industry: 'Software',
          size: '51-200',
          employees: 120,
          founded: 2004,
          location: { country: 'GB', region: 'England', city: 'London' },
        }),
      ),
      { db },
    );
    expect(report).toMatchObject({ imported: 1 });
  } finally {
    await db.$disconnect();
  }
  // Started after the data is in: the visitors replica loads it before its first chunk.
  [visitors, enrichment] = await Promise.all([startTestVisitorsService({ COMPANIES_VIEW_CACHE_SECONDS: '0' }), startTestEnrichmentService()]);
  gateway = await startTestGateway({ VISITORS_URL: visitors.url, ENRICHMENT_URL: enrichment.url });
});

afterAll(async () => {
  await gateway?.stop();
  await Promise.all([visitors?.stop(), enrichment?.stop()]);
  for (const name of [DATASET, CITY]) await deleteIpDataset(serviceDatabaseUrl('visitors'), name).catch(() => undefined);
  await closeTestDb();
});

let n = 0;
const id = (prefix: string) => `${prefix}_${Date.now().toString(36)}${(n++).toString(36).padStart(4, '0')}`;

async function view(siteKey: string, address: string, paths: string[]): Promise<string> {
  let vid: string | undefined;
  for (const p of paths) {
    const sent = await request(`${gateway.url}/collect`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain', origin: ORIGIN, 'user-agent': DESKTOP, 'x-forwarded-for': address },
      body: JSON.stringify({ site: siteKey, ...(vid ? { vid } : {}), events: [{ type: 'pageview', id: id('pv'), path: p, title: p }] }),
    });
    expect(sent.status).toBe(200);
    vid = sent.body.vid as string;
  }
  return vid!;
}

it('names the company of a business network with its location and firmographics, keeps a home visitor anonymous, and the companies view counts them', async () => {
  const manager = await createManager(['account:manage', 'visitors:read']);
  const client = api(gateway.url, manager.key);
  const site = (await client.post('/account/sites', { name: 'Companies', origins: [ORIGIN] })).body as { id: string; key: string };
  const office = await view(site.key, '81.2.69.142', ['/pricing', '/docs']);
  const colleague = await view(site.key, '81.2.69.160', ['/pricing']);
  const home = await view(site.key, '89.160.20.112', ['/pricing', '/blog']);
  for (const v of [office, colleague, home]) {
    await waitFor(async () => (await client.get(`/visitors/${v}/details`)).body?.page_views > 0, { what: `the page views of ${v} applied` });
  }

  const london = { country: 'GB', region: 'England', city: 'London', time_zone: 'Europe/London' };
  const atOffice = (await client.get(`/visitors/${office}/details`)).body;
  expect(atOffice).toMatchObject({
    company: 'Acme Ltd',
    identified_by: { method: 'ip_company', confidence: 0.5 },
    network: { name: 'Acme Ltd', type: 'business', asn: 64500 },
    location: london,
    company_profile: { domain: ACME, industry: 'Software', size: '51-200', employees: 120 },
  });
  const atHome = (await client.get(`/visitors/${home}/details`)).body;
  expect(atHome).toMatchObject({ network: { name: 'Comcast Cable Communications, LLC', type: 'isp' }, location: { country: 'SE', city: 'Linköping' } });
  for (const field of ['company', 'identified_by', 'company_profile', 'name', 'email']) expect(atHome[field]).toBeUndefined();

  const listed = await client.get(`/account/companies?site=${site.id}`);
  expect(listed.status).toBe(200);
  expect(listed.body).toEqual({
    items: [
      expect.objectContaining({
        key: ACME,
        name: 'Acme Ltd',
        domain: ACME,
        visitors: 2,
        identified: 0,
        sessions: 2,
        page_views: 3,
        network_type: 'business',
        location: london,
        top_pages: [
          { path: '/pricing', views: 2 },
          { path: '/docs', views: 1 },
        ],
        firmographics: expect.objectContaining({ industry: 'Software', size: '51-200' }),
      }),
    ],
    nextCursor: null,
  });
  expect((await client.get(`/account/companies?site=${site.id}&industry=software`)).body.items.map((c: { key: string }) => c.key)).toEqual([ACME]);
  expect((await client.get(`/account/companies?site=${site.id}&industry=Retail`)).body.items).toEqual([]);
  expect((await client.get(`/account/companies?site=${site.id}&country=SE`)).body.items).toEqual([]);
  expect((await client.get(`/account/companies?site=${site.id}&network_type=isp`)).status).toBe(400);
  expect((await client.get(`/account/companies?site=${site.id}&bogus=1`)).status).toBe(400);

  const csv = await fetch(`${gateway.url}/account/companies.csv?site=${site.id}`, { headers: { authorization: `Bearer ${manager.key}` } });
  expect(csv.headers.get('content-type')).toMatch(/^text\/csv/);
  expect(csv.headers.get('content-disposition')).toContain('companies.csv');
  const rows = (await csv.text()).trim().split('\r\n');
  expect(rows).toHaveLength(2);
  expect(rows[1]).toMatch(new RegExp(`^Acme Ltd,${ACME.replace(/\./g, '\\.')},Software,51-200,120,GB,England,London,business,2,0,2,3,`));

  const one = await client.get(`/account/companies/${ACME}?site=${site.id}`);
  expect(one.status).toBe(200);
  expect(one.body).toMatchObject({
    key: ACME,
    visitors: 2,
    firmographics: { industry: 'Software' },
    pages: [
      { path: '/pricing', views: 2 },
      { path: '/docs', views: 1 },
    ],
  });
  expect(one.body.days.at(-1)).toMatchObject({ visitors: 2, sessions: 2, page_views: 3 });
  expect((await client.get('/account/companies/nobody.example')).status).toBe(404);
  // Another account sees none of it.
  expect((await api(gateway.url, (await createManager()).key).get(`/account/companies?site=${site.id}`)).body.items).toEqual([]);
});
