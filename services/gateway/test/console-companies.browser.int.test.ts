/// <reference lib="dom" />
// The console's Companies page in a real headless Chromium against a real gateway, visitors and
// enrichment service (Kafka and Postgres between them), seeded through the real path: IP data
// imported as an operator does (a ranges dataset naming a business and a college network, and
// MaxMind's City test database for locations), a company record imported into enrichment, and page
// views posted to /collect from those addresses (X-Forwarded-For, trusted from loopback). What a
// marketer sees: Companies is the landing page and lists each company with its counts and location;
// the network filter keeps the college alone; a company's page has its firmographics, its visits per
// day as a chart (and a table), its people and pages; a person links to the visitor page, which
// shows the network and location and links back; the CSV download has the rows.
import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { type Page } from 'playwright-core';
import { importCompanies } from '@glimpse/enrichment';
import { deleteIpDataset, importIpDataset, importLocationFile } from '@glimpse/visitors';
import { serviceDatabaseUrl } from '../../../test/config';
import { testDb, waitFor } from '../../../test/support/stack';
import {
  accountApi,
  collect as collectAt,
  heading,
  newManager,
  openConsole,
  pageView,
  screenshot,
  signIn,
  startConsoleGateway,
  uniqueId,
  uniqueOrigin,
  useConsole,
} from '../../../test/support/console';

const CITY_FILE = path.resolve(__dirname, '../../visitors/test/fixtures/ip-data/GeoIP2-City-Test.mmdb');

const tag = randomBytes(4).toString('hex');
const DATASETS = { ranges: `console-${tag}-ranges`, city: `console-${tag}-city` };
// Addresses MaxMind's City test database knows, each in a range of this test's own dataset.
const BOXFORD_IP = '2.125.160.216'; // Boxford, England, GB
const MILTON_IP = '216.160.83.56'; // Milton, Washington, US
const boxford = { domain: `boxford-${tag}.example`, network: 'Boxford Widgets', name: 'Boxford Widgets Ltd' };
const milton = { domain: `milton-${tag}.example`, name: 'Milton College' };

async function* linesOf(values: readonly unknown[]): AsyncIterable<string> {
  for (const value of values) yield JSON.stringify(value);
}

async function importIpData(): Promise<void> {
  const databaseUrl = serviceDatabaseUrl('visitors');
  const ranges = [
    { cidr: `${BOXFORD_IP}/32`, company: { name: boxford.network, domain: boxford.domain }, type: 'business', asn: 64501 },
    { cidr: `${MILTON_IP}/32`, company: { name: milton.name, domain: milton.domain }, type: 'education', asn: 64502 },
  ];
  // Above whatever other test files of this lane left in its database.
  const ranged = await importIpDataset(linesOf(ranges), { databaseUrl, dataset: DATASETS.ranges, format: 'ndjson', precedence: 2_000_000_000 });
  expect(ranged).toMatchObject({ imported: 2, skipped: 0 });
  await importLocationFile(CITY_FILE, { databaseUrl, dataset: DATASETS.city });
  const firmographics = {
    domain: boxford.domain,
    name: boxford.name,
    industry: 'Industrial Machinery',
    size: '51-200',
    employees: 120,
    founded: 1998,
    location: { country: 'United Kingdom', region: 'England', city: 'Boxford' },
    profile_url: `https://www.pronet.example/company/boxford-${tag}`,
  };
  expect(await importCompanies(linesOf([firmographics]), { db: testDb('enrichment') })).toMatchObject({ imported: 1, skipped: 0 });
}

async function removeIpDataAndCompanies(): Promise<void> {
  const databaseUrl = serviceDatabaseUrl('visitors');
  await Promise.all(Object.values(DATASETS).map((name) => deleteIpDataset(databaseUrl, name).catch(() => undefined)));
  await testDb('enrichment').company.deleteMany({ where: { domain: { endsWith: `-${tag}.example` } } });
}

// The visitors service starts after the import (it loads the IP data before its first page view)
// and polls it every second after that. No reuse of a window's aggregate: the test reads the list
// as soon as its page views are applied.
const ui = useConsole(
  "the console's companies tests",
  () => startConsoleGateway({ enrichment: true, visitorsEnv: { VISITORS_IP_DATA_POLL_MS: '1000', COMPANIES_VIEW_CACHE_SECONDS: '0' } }),
  { timeoutMs: 90_000, before: importIpData, after: removeIpDataAndCompanies },
);

const status = (page: Page, text: string | RegExp) => page.getByRole('status').filter({ hasText: text }).waitFor();

const api = (key: string, pathAndQuery: string, init: { method?: string; body?: unknown } = {}) => accountApi(ui.stack.gateway.url, key, pathAndQuery, init);

/** What the tag sends, from a visitor at `address` behind the loopback proxy; answers the visitor id. */
const collect = (origin: string, siteKey: string, address: string, events: object[], vid?: string) =>
  collectAt(ui.stack.gateway.url, origin, siteKey, events, { address, ...(vid ? { vid } : {}) });

/** Cells of a table row as text, its header cell first. */
const cells = (page: Page, rowHeader: string) =>
  page
    .getByRole('row')
    .filter({ has: page.getByRole('rowheader', { name: rowHeader }) })
    .locator('th, td')
    .allTextContents();

describe('console: companies', () => {
  it('when visitors come from a business and a college network, then Companies is the landing page, filters by network type, opens a company with its chart and people, and downloads the rows as CSV', async () => {
    // Arrange: a site, two visitors from Boxford's office (one identified by a work email) and one from Milton's college.
    const { key } = await newManager('console companies');
    const origin = uniqueOrigin('shop');
    const created = await api(key, 'sites', { method: 'POST', body: { name: 'Shop', origins: [origin] } });
    expect(created.status).toBe(201);
    const site = created.body;
    const reader = await collect(origin, site.key, BOXFORD_IP, [pageView(origin, '/pricing'), pageView(origin, '/docs')]);
    const ada = `ada@${boxford.domain}`;
    const buyer = await collect(origin, site.key, BOXFORD_IP, [
      pageView(origin, '/pricing'),
      { type: 'identify', id: uniqueId('id'), email: ada, traits: {}, path: '/pricing' },
    ]);
    await collect(origin, site.key, MILTON_IP, [pageView(origin, '/admissions')]);
    await waitFor(
      async () => {
        const res = await api(key, 'companies');
        expect(res.status).toBe(200);
        const { items } = res.body as { items: { key: string; page_views: number; identified: number }[] };
        const counts = Object.fromEntries(items.map((c) => [c.key, `${c.page_views}/${c.identified}`]));
        return counts[boxford.domain] === '3/1' && counts[milton.domain] === '1/0';
      },
      { timeoutMs: 40_000, intervalMs: 500, what: 'both companies counted by the visitors service' },
    );

    // Signed in, the console opens on Companies, first in the navigation.
    const { page, problems } = await openConsole(ui.browser, ui.stack.gateway.url, { viewport: { width: 1280, height: 900 }, acceptDialogs: false });
    await signIn(page, key);
    expect(new URL(page.url()).hash).toBe('#/companies');
    const nav = page.getByRole('navigation', { name: 'Console pages' }).getByRole('link');
    expect(await nav.first().textContent()).toBe('Companies');
    expect(await nav.first().getAttribute('aria-current')).toBe('page');

    // Each company with its firmographics, location and counts; the latest visit first.
    await page.getByRole('rowheader', { name: new RegExp(boxford.name) }).waitFor();
    const rows = page.locator('table tbody tr');
    expect(await rows.count()).toBe(2);
    expect(await rows.nth(0).locator('th').textContent()).toMatch(new RegExp(`^${milton.name}`)); // visited last
    expect(await cells(page, boxford.name)).toEqual([
      `${boxford.name}${boxford.domain}`,
      expect.stringMatching(/^\d+$/), // the intent score
      'Industrial Machinery',
      '51-200',
      'Boxford, England, GB',
      '2',
      '1',
      '3',
      '2',
      expect.stringMatching(/\d/),
      '/pricing (2)/docs (1)',
    ]);
    expect(await cells(page, milton.name)).toEqual([
      `${milton.name}${milton.domain}`,
      expect.stringMatching(/^\d+$/), // the intent score
      '–',
      '–',
      'Milton, Washington, US',
      '1',
      '0',
      '1',
      '1',
      expect.stringMatching(/\d/),
      '/admissions (1)',
    ]);
    await screenshot(page, 'companies');

    // The intent score: 3 a session, 1 a page view by default, its reasons on hover; sorted by it, Boxford (9) leads Milton (4).
    const score = (name: string) =>
      page
        .getByRole('row')
        .filter({ has: page.getByRole('rowheader', { name }) })
        .locator('.score');
    expect(await score(boxford.name).textContent()).toBe('9');
    expect(await score(boxford.name).getAttribute('title')).toBe('2 sessions: 6 points\n3 page views: 3 points');
    await page.getByLabel('Sort by').selectOption('score');
    await page.getByRole('button', { name: 'Show companies' }).click();
    await waitFor(async () => new URL(page.url()).hash.includes('sort=score') && (await rows.nth(0).locator('th').textContent())?.startsWith(boxford.name), {
      timeoutMs: 10_000,
      what: 'the companies by intent score',
    });
    expect(await rows.nth(1).locator('th').textContent()).toMatch(new RegExp(`^${milton.name}`));
    expect(await score(milton.name).textContent()).toBe('4');
    await screenshot(page, 'companies-by-score');
    await page.getByLabel('Sort by').selectOption('last_visit');

    // The network filter keeps the college alone, and the address keeps the filter.
    await page.getByLabel('Network').selectOption('education');
    await page.getByRole('button', { name: 'Show companies' }).click();
    await waitFor(async () => (await rows.count()) === 1 && (await rows.nth(0).locator('th').textContent())?.startsWith(milton.name), {
      timeoutMs: 10_000,
      what: 'the college alone',
    });
    expect(new URL(page.url()).hash).toBe('#/companies?network_type=education');
    await page.getByLabel('Network').selectOption('business');
    await page.getByRole('button', { name: 'Show companies' }).click();
    await waitFor(async () => (await rows.count()) === 1 && (await rows.nth(0).locator('th').textContent())?.startsWith(boxford.name), {
      timeoutMs: 10_000,
      what: 'the business alone',
    });

    // The CSV of the filtered list: the header and Boxford's row, fetched with the key.
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download CSV' }).click()]);
    expect(download.suggestedFilename()).toBe('companies.csv');
    const csv = fs
      .readFileSync((await download.path())!, 'utf8')
      .trim()
      .split(/\r?\n/);
    expect(csv[0]).toMatch(/^name,domain,industry,size,/);
    expect(csv).toHaveLength(2);
    expect(csv[1]).toContain(`${boxford.name},${boxford.domain},Industrial Machinery,51-200,`);
    expect(csv[1]).toContain(',GB,England,Boxford,business,2,1,2,3,');
    await status(page, 'Downloading companies.csv.');

    // The company's page: firmographics, visits per day (chart and table), people and pages.
    await page.getByRole('link', { name: boxford.name }).click();
    await heading(page, boxford.name);
    expect(new URL(page.url()).hash).toBe(`#/companies?company=${boxford.domain}&network_type=business`);
    const facts = await page
      .locator('#company-facts')
      .evaluate((dl) => Object.fromEntries(Array.from(dl.querySelectorAll('dt')).map((dt) => [dt.textContent, dt.nextElementSibling?.textContent])));
    expect(facts).toMatchObject({
      Domain: boxford.domain,
      Industry: 'Industrial Machinery',
      Size: '51-200 employees',
      Employees: '120',
      Founded: '1998',
      Headquarters: 'Boxford, England, United Kingdom',
      Profile: `https://www.pronet.example/company/boxford-${tag}`,
      Network: 'business network',
      'Latest visitor in': 'Boxford, England, GB',
    });
    // Its score and the reason for every point.
    await page.getByRole('heading', { level: 2, name: 'Intent score: 9' }).waitFor();
    expect(await page.locator('section.intent li').allTextContents()).toEqual([
      expect.stringMatching(/^\+6 2 sessions \(last /),
      expect.stringMatching(/^\+3 3 page views \(last /),
    ]);
    const bars = await page
      .locator('svg.visits-chart rect.bar')
      .evaluateAll((rects) =>
        rects.map((r) => ({ day: r.getAttribute('data-day')!, visits: Number(r.getAttribute('data-visits')), title: r.querySelector('title')!.textContent! })),
      );
    expect(bars.length).toBeGreaterThanOrEqual(30);
    expect(bars.reduce((sum, b) => sum + b.visits, 0)).toBe(2);
    expect(bars.filter((b) => b.visits > 0).map((b) => b.title)).toEqual([expect.stringMatching(/: 2 visits, 2 visitors, 3 page views$/)]);
    expect(await page.locator('svg.visits-chart').getAttribute('aria-labelledby')).toBe('visits-summary');
    expect(await page.locator('#visits-summary').textContent()).toMatch(
      new RegExp(`^2 visits from ${boxford.name} in the last 30 days; the busiest day, .+, had 2 visits\\.$`),
    );
    const byDay = page.getByRole('table', { name: 'Visits per day (UTC)', includeHidden: true }); // in a closed <details>
    expect(await byDay.locator('tbody tr').count()).toBe(bars.length);
    const people = page.getByRole('table', { name: `People from ${boxford.name}, newest first` });
    expect(await people.locator('tbody tr').count()).toBe(2);
    expect(await cells(page, buyer)).toEqual([buyer, ada, '1', expect.stringMatching(/\d/), 'Boxford, England, GB']);
    expect(await cells(page, reader)).toEqual([reader, 'anonymous', '2', expect.stringMatching(/\d/), 'Boxford, England, GB']);
    const pages = await page
      .getByRole('table', { name: `Pages viewed from ${boxford.name}, most viewed first` })
      .locator('tbody tr')
      .allTextContents();
    expect(pages).toEqual(['/pricing2', '/docs1']);
    await page.locator('svg.visits-chart').scrollIntoViewIfNeeded();
    await screenshot(page, 'company');

    // A person opens on the visitor page, with the network and location, and links back to the company.
    await page.getByRole('link', { name: `Open visitor ${buyer}` }).click();
    const detail = page.getByRole('region', { name: `Visitor ${buyer}` });
    await detail.waitFor();
    expect(await detail.locator('#visitor-network').textContent()).toBe(`${boxford.network}, business network, AS 64501`);
    expect(await detail.locator('#visitor-location').textContent()).toBe('Boxford, England, GB (Europe/London)');
    // The list beside it: the company and the network and location columns.
    const listed = await cells(page, buyer);
    expect(listed.slice(-2)).toEqual([boxford.domain, `${boxford.network}, business network, AS 64501Boxford, England, GB`]);
    await detail.getByRole('link', { name: boxford.domain }).click();
    await heading(page, boxford.name);

    // Back to the list; the window and sort survive in the address.
    await page.getByRole('link', { name: 'All companies' }).click();
    await heading(page, 'Companies');
    await page.getByLabel('Network').selectOption('');
    await page.getByLabel('Window').selectOption('7');
    await page.getByLabel('Sort by').selectOption('page_views');
    await page.getByRole('button', { name: 'Show companies' }).click();
    await waitFor(async () => (await rows.count()) === 2, { timeoutMs: 10_000, what: 'both companies again' });
    expect(await rows.nth(0).locator('th').textContent()).toMatch(new RegExp(`^${boxford.name}`)); // 3 page views before 1
    expect(new URL(page.url()).hash).toBe('#/companies?days=7&sort=page_views');
    expect(problems).toEqual([]);
    await page.context().close();
  }, 150_000);
});
