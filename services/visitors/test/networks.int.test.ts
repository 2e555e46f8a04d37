// What an address tells about a visitor, on the real broker and Postgres: datasets of ranges loaded
// into the replica (a vendor's typed ranges above an ASN file whose types the classifier decides),
// the City database (MaxMind's test database) for the location; a business range names the company
// and identifies the visitor by ip_company, a home or hosting network does not; the companies view
// counts the company; its first visit of the day is published on visitors.companies once.
import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { TOPICS, companyVisitedSchema } from '@glimpse/messaging';
import { deleteNetworkTypeOverride, setNetworkTypeOverride, type RunningVisitorsService } from '@glimpse/visitors';
import { serviceDatabaseUrl } from '../../../test/config';
import { endOffsets, ofAccount, readTopic } from '../../../test/support/kafka-helpers';
import { closeTestDb, testDb, waitFor } from '../../../test/support/stack';
import { startTestVisitorsService, visitorsApi } from '../../../test/support/visitors';
import { closeProducer, message, newSite, newVisitorId, produceCollected, type Site } from './collected-messages';

const tag = randomBytes(4).toString('hex');
const DATASETS = { vendor: `test-${tag}-vendor`, asn: `test-${tag}-asn`, city: `test-${tag}-city` };
// Above whatever other test files of this lane left in its database.
const TOP = 1_000_000_000;
const CITY_FILE = path.join(__dirname, 'fixtures', 'ip-data', 'GeoIP2-City-Test.mmdb');

let service: RunningVisitorsService;

async function seed(): Promise<void> {
  const db = testDb('visitors');
  const ranges: [string, string, string, number | null, string, string | null, string | null][] = [
    // A vendor's business range inside MaxMind's test London block, not CIDR-aligned.
    [DATASETS.vendor, '81.2.69.130', '81.2.69.170', 64500, 'Acme Corp', `acme-${tag}.example`, 'business'],
    // An ASN file (no types): a home ISP around Linköping's test block, a cloud on Japan's IPv6 block.
    [DATASETS.asn, '89.160.0.0', '89.160.255.255', 7922, 'Comcast Cable Communications, LLC', null, null],
    [DATASETS.asn, '2001:218::', '2001:218:ffff:ffff:ffff:ffff:ffff:ffff', 14061, 'DigitalOcean, LLC', null, null],
    // The ASN file also holds the vendor's range: the vendor's precedence wins there.
    [DATASETS.asn, '81.2.69.0', '81.2.69.255', 20712, 'Andrews & Arnold Ltd', null, null],
  ];
  for (const [dataset, first, last, asn, name, domain, type] of ranges) {
    await db.$executeRawUnsafe(
      `INSERT INTO ip_ranges (dataset, version, first, last, asn, name, domain, type) VALUES ($1, 1, $2::inet, $3::inet, $4, $5, $6, $7)`,
      dataset,
      first,
      last,
      asn,
      name,
      domain,
      type,
    );
  }
  await db.$executeRawUnsafe(
    `INSERT INTO ip_datasets (name, kind, format, precedence, version, size) VALUES ($1, 'ranges', 'csv', $3, 1, 1), ($2, 'ranges', 'csv', $3 - 1, 1, 3)`,
    DATASETS.vendor,
    DATASETS.asn,
    TOP,
  );
  const file = fs.readFileSync(CITY_FILE);
  await db.$executeRawUnsafe(`INSERT INTO ip_dataset_files (dataset, version, seq, bytes) VALUES ($1, 1, 0, $2)`, DATASETS.city, file);
  await db.$executeRawUnsafe(
    `INSERT INTO ip_datasets (name, kind, format, precedence, version, size) VALUES ($1, 'location', 'mmdb', $2, 1, $3)`,
    DATASETS.city,
    TOP,
    file.length,
  );
}

beforeAll(async () => {
  await seed();
  // Started after the data is in: a replica loads it before its first chunk.
  service = await startTestVisitorsService({ VISITORS_IP_DATA_POLL_MS: '1000' });
});

afterAll(async () => {
  const db = testDb('visitors');
  const names = Object.values(DATASETS);
  await db.$executeRawUnsafe(`DELETE FROM ip_ranges WHERE dataset = ANY($1::text[])`, names);
  await db.$executeRawUnsafe(`DELETE FROM ip_dataset_files WHERE dataset = ANY($1::text[])`, names);
  await db.$executeRawUnsafe(`DELETE FROM ip_datasets WHERE name = ANY($1::text[])`, names);
  await service?.stop();
  await closeProducer();
  await closeTestDb();
});

const api = (site: Site, p: string, init?: RequestInit) => visitorsApi(service.url, site.accountId, p, init);
const details = async (site: Site, v: string) => (await api(site, `/internal/visitors/${v}/details`)).body;
const query = async (site: Site, filter: Record<string, unknown>) =>
  (await api(site, '/internal/companies/query', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(filter) })).body;

describe('networks, locations and companies from addresses', () => {
  it('names the company of a business range with its location, leaves home and cloud visitors anonymous with their network, and counts the company once', async () => {
    const site = newSite();
    const [office, colleague, home, cloud] = [newVisitorId(), newVisitorId(), newVisitorId(), newVisitorId()];
    const from = await endOffsets(TOPICS.visitorsCompanies);
    await produceCollected([
      message(site, office, 'pageview', { path: '/pricing', ip: '81.2.69.142' }),
      message(site, office, 'pageview', { path: '/docs', ip: '81.2.69.142' }),
      message(site, colleague, 'pageview', { path: '/pricing', ip: '::ffff:81.2.69.160' }),
      message(site, home, 'pageview', { path: '/pricing', ip: '89.160.20.115' }),
      message(site, cloud, 'pageview', { path: '/', ip: '2001:218::5' }),
    ]);
    await waitFor(async () => (await details(site, cloud))?.visitor?.page_views === 1 && (await details(site, office))?.visitor?.page_views === 2, {
      what: 'the page views applied',
    });

    const london = { country: 'GB', region: 'England', city: 'London', time_zone: 'Europe/London' };
    expect((await details(site, office)).visitor).toMatchObject({
      company: 'Acme Corp',
      identified_by: { method: 'ip_company', confidence: 0.5 },
      network: { name: 'Acme Corp', type: 'business', asn: 64500 },
      location: london,
      company_key: `acme-${tag}.example`,
    });
    const atHome = (await details(site, home)).visitor;
    expect(atHome).toMatchObject({
      network: { name: 'Comcast Cable Communications, LLC', type: 'isp', asn: 7922 },
      location: { country: 'SE', city: 'Linköping' },
    });
    expect(atHome.company).toBeUndefined();
    expect(atHome.identified_by).toBeUndefined();
    const inCloud = (await details(site, cloud)).visitor;
    expect(inCloud).toMatchObject({ network: { type: 'hosting', asn: 14061 }, location: { country: 'JP' } });
    expect(inCloud.company).toBeUndefined();

    // The companies view: one company, its two visitors and three page views; the home and cloud visitors are in no company.
    const all = await query(site, {});
    expect(all.items).toEqual([
      expect.objectContaining({
        key: `acme-${tag}.example`,
        name: 'Acme Corp',
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
      }),
    ]);
    expect((await query(site, { country: 'SE' })).items).toEqual([]);
    expect((await query(site, { network_type: 'education' })).items).toEqual([]);
    expect((await query(site, { min_visits: 3 })).items).toEqual([]);
    const one = (await api(site, `/internal/companies/${encodeURIComponent(`ACME-${tag}.example`)}`)).body;
    expect(one).toMatchObject({
      visitors: 2,
      pages: [
        { path: '/pricing', views: 2 },
        { path: '/docs', views: 1 },
      ],
    });
    expect(one.people.map((p: { pageViews: number; location: unknown }) => [p.pageViews, p.location]).sort()).toEqual([
      [1, london],
      [2, london],
    ]);
    expect(one.days.at(-1)).toMatchObject({ visitors: 2, sessions: 2, page_views: 3 });

    // Announced once for the site and the day, whichever of its visitors came first.
    const ours = (m: Parameters<typeof ofAccount>[0]) => ofAccount(m, site.accountId);
    await readTopic(TOPICS.visitorsCompanies, { from, until: (m) => ours(m).length >= 1 });
    const read = ours(await readTopic(TOPICS.visitorsCompanies, { from, to: await endOffsets(TOPICS.visitorsCompanies) }));
    expect(read).toHaveLength(1);
    const visited = companyVisitedSchema.parse(read[0]!.json);
    expect(visited).toMatchObject({ company: `acme-${tag}.example`, name: 'Acme Corp', domain: `acme-${tag}.example`, siteId: site.siteId, location: london });

    // Nothing of an address is kept.
    const stored = await testDb('visitors').$queryRawUnsafe<{ t: string }[]>(
      `SELECT row_to_json(p)::text AS t FROM visitor_profiles p WHERE account_id = $1::uuid`,
      site.accountId,
    );
    expect(stored.map((s) => s.t).join()).not.toMatch(/81\.2\.69|89\.160|2001:218/);
  });

  it('when an operator types an AS as business, then the replicas name its organisation as the company of new page views', async () => {
    const site = newSite();
    const asn = { asn: '7922' };
    await setNetworkTypeOverride(serviceDatabaseUrl('visitors'), asn, 'business');
    try {
      // Each try a new visitor: the replica takes the override at its next poll (every second here).
      const named = await waitFor(
        async () => {
          const v = newVisitorId();
          await produceCollected([message(site, v, 'pageview', { path: '/', ip: '89.160.20.115' })]);
          const d = await waitFor(async () => (await details(site, v))?.visitor, { what: 'the page view applied' });
          return d.company ? d : undefined;
        },
        { what: 'the override taken up', timeoutMs: 30_000, intervalMs: 500 },
      );
      expect(named).toMatchObject({ company: 'Comcast Cable Communications, LLC', network: { type: 'business' }, identified_by: { method: 'ip_company' } });
    } finally {
      await deleteNetworkTypeOverride(serviceDatabaseUrl('visitors'), asn);
    }
  });
});
