/// <reference lib="dom" />
// Identification end to end in a real headless Chromium: sites created through POST /account/sites
// with their identification settings, their install snippet on pages this test serves, a real
// gateway producing to Kafka for a real visitors service, read back through the public API (the
// details lookup, GET /account/visitors/{id}, the site's stats) and from the browser itself
// (cookies, storage, the address bar). The tag's requests alone are tag-identification-behaviour.
// Addresses (X-Forwarded-For on the tab's posts) in IP datasets imported before the services start:
// a business range names the company, home, mobile and hosting ranges do not.
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { type Browser, type BrowserContext, type Page } from 'playwright-core';
import { createDb } from '@glimpse/db/enrichment';
import { importCompanies } from '@glimpse/enrichment';
import type { RunningGateway } from '@glimpse/gateway';
import { deleteIpDataset, importIpDataset, importLocationFile } from '@glimpse/visitors';
import { serviceDatabaseUrl } from '../../../test/config';
import { VISITOR_ID_PATTERN } from '@glimpse/messaging';
import { launchChromium } from '../../../test/support/browser';
import {
  closeTestDb,
  createTestAccount,
  createTestApiKey,
  request,
  startTestEnrichmentService,
  startTestGateway,
  uniqueEmail,
  waitFor,
} from '../../../test/support/stack';
import { startTestVisitorsService } from '../../../test/support/visitors';
import { startTestSite, type PageOptions, type TestSite } from './tag-site';

const PASSWORD = 'Tr0ub4dor-never-sent';

let browser: Browser;
let visitors: Awaited<ReturnType<typeof startTestVisitorsService>>;
let enrichment: Awaited<ReturnType<typeof startTestEnrichmentService>>;
let gateway: RunningGateway;
let site: TestSite;
let page: PageOptions;
let manageKey: string;
let lookupKey: string;
/** Chromium's own user agent without "Headless", which the gateway's bot filter rightly refuses. */
let userAgent: string;

const ipTag = randomBytes(4).toString('hex');
const IP_DATASETS = { ranges: `tag-${ipTag}`, city: `tag-${ipTag}-city` };
const ACME = { name: `Acme ${ipTag}`, domain: `acme-${ipTag}.example` };

/** The IP data the tests' addresses fall in (inside blocks MaxMind's City test database locates), and Acme's firmographics. */
async function importIpData(): Promise<void> {
  const databaseUrl = serviceDatabaseUrl('visitors');
  const report = await importIpDataset(
    [
      `81.2.69.128,81.2.69.191,64500,${ACME.name},${ACME.domain},business`,
      '89.160.20.112,89.160.20.127,64501,"Example Broadband, Inc.",,isp',
      '2.125.160.216,2.125.160.223,64502,Example Mobile,,mobile',
      '216.160.83.56,216.160.83.63,64503,Example Cloud,,hosting',
    ],
    // Above whatever else this lane's database holds.
    { databaseUrl, dataset: IP_DATASETS.ranges, format: 'csv', columns: ['start', 'end', 'asn', 'name', 'domain', 'type'], precedence: 2_147_000_000 },
  );
  expect(report).toMatchObject({ imported: 4, skipped: 0 });
  await importLocationFile(path.join(__dirname, '..', '..', 'visitors', 'test', 'fixtures', 'ip-data', 'GeoIP2-City-Test.mmdb'), {
    databaseUrl,
    dataset: IP_DATASETS.city,
  });
  const db = createDb({ databaseUrl: serviceDatabaseUrl('enrichment'), poolSize: 1 });
  try {
    const line = { domain: ACME.domain, name: ACME.name, industry: 'Industrial Machinery', size: '51-200', employees: 150, founded: 1998 };
    expect(
      await importCompanies(
        (async function* () {
          yield JSON.stringify(line);
        })(),
        { db },
      ),
    ).toMatchObject({ imported: 1 });
  } finally {
    await db.$disconnect();
  }
}

beforeAll(async () => {
  // Before the visitors service starts: a replica loads the IP data before its first chunk.
  await importIpData();
  [browser, visitors, enrichment] = await Promise.all([
    launchChromium("the site tag's identification tests"),
    startTestVisitorsService({ COMPANIES_VIEW_CACHE_SECONDS: '0' }),
    startTestEnrichmentService(),
  ]);
  gateway = await startTestGateway({ VISITORS_URL: visitors.url, ENRICHMENT_URL: enrichment.url });
  site = await startTestSite(() => page);
  const probe = await browser.newContext();
  userAgent = (await (await probe.newPage()).evaluate(() => navigator.userAgent)).replace('HeadlessChrome', 'Chrome');
  await probe.close();
  const { accountId } = await createTestAccount('site tag identification');
  [{ key: manageKey }, { key: lookupKey }] = await Promise.all([
    createTestApiKey(accountId, ['account:manage']),
    createTestApiKey(accountId, ['visitors:read']),
  ]);
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await site?.stop();
  await gateway?.stop();
  await Promise.all([visitors?.stop(), enrichment?.stop()]);
  for (const name of Object.values(IP_DATASETS)) await deleteIpDataset(serviceDatabaseUrl('visitors'), name).catch(() => undefined);
  await closeTestDb();
});

const manage = (path: string, init: { method?: string; body?: unknown } = {}) =>
  request(`${gateway.url}${path}`, {
    method: init.method ?? 'GET',
    headers: { authorization: `Bearer ${manageKey}`, ...(init.body !== undefined ? { 'content-type': 'application/json' } : {}) },
    ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : {}),
  });

/** A site of the test account with these settings; its pages install the console's snippet (which carries them). */
async function createSite(name: string, settings: Record<string, unknown> = {}, body = ''): Promise<{ id: string; snippet: { html: string } }> {
  const created = await manage('/account/sites', { method: 'POST', body: { name, origins: [site.origin], ...settings } });
  expect(created.status).toBe(201);
  page = { collector: gateway.url, siteKey: created.body.key, snippet: created.body.snippet.html, body };
  return created.body;
}

interface Tab {
  context: BrowserContext;
  tab: Page;
  problems: string[];
  /** Every body the page posted to /collect (fetch and beacon). */
  bodies: string[];
}

/** A fresh context (no cookies, no storage) and tab recording what the page throws and what it posts to the gateway. */
async function openTab(options: { gpc?: boolean; userAgent?: string | null; forwardedFor?: string } = {}): Promise<Tab> {
  const context = await browser.newContext({
    ...(options.userAgent === null ? {} : { userAgent: options.userAgent ?? userAgent }),
  });
  // Added to the posts as they leave (a header the page set itself would need a CORS preflight).
  const forwardedFor = options.forwardedFor;
  if (forwardedFor)
    await context.route(`${gateway.url}/collect`, (route) => route.continue({ headers: { ...route.request().headers(), 'x-forwarded-for': forwardedFor } }));
  if (options.gpc)
    await context.addInitScript(() => Object.defineProperty(Navigator.prototype, 'globalPrivacyControl', { get: () => true, configurable: true }));
  const tab = await context.newPage();
  const problems: string[] = [];
  const bodies: string[] = [];
  tab.on('pageerror', (err) => problems.push(err.message));
  tab.on('console', (msg) => msg.type() === 'error' && !msg.text().startsWith('Failed to load resource') && problems.push(msg.text()));
  context.on('request', (req) => req.url() === `${gateway.url}/collect` && bodies.push(req.postData() ?? ''));
  return { context, tab, problems, bodies };
}

type Glimpse = { (...args: unknown[]): void; visitorId(): string | null };
const call = (tab: Page, ...args: unknown[]) => tab.evaluate((a) => (window as unknown as { glimpse: Glimpse }).glimpse(...a), args);
const visitorId = (tab: Page) => tab.evaluate(() => (window as unknown as { glimpse?: Glimpse }).glimpse?.visitorId?.() ?? null);
const storageLengths = (tab: Page) => tab.evaluate(() => [localStorage.length, sessionStorage.length]);
const visitorCookies = async (context: BrowserContext) => (await context.cookies()).filter((cookie) => cookie.name === '_glv');
const details = (vid: string) => request(`${gateway.url}/visitors/${vid}/details`, { headers: { authorization: `Bearer ${lookupKey}` } });
// eslint-disable-next-line @typescript-eslint/no-explicit-any
const waitForDetails = (vid: string, ready: (body: Record<string, any>) => boolean, what: string) =>
  waitFor(
    async () => {
      const answer = await details(vid);
      return answer.status === 200 && ready(answer.body) && answer.body;
    },
    { what, timeoutMs: 30_000, intervalMs: 250 },
  );
// eslint-disable-next-line @typescript-eslint/no-explicit-any
const waitForRecord = (vid: string, ready: (body: Record<string, any>) => boolean, what: string) =>
  waitFor(
    async () => {
      const answer = await manage(`/account/visitors/${vid}`);
      return answer.status === 200 && ready(answer.body) && answer.body;
    },
    { what, timeoutMs: 30_000, intervalMs: 250 },
  );
/** Returns a wait for the gateway to have accepted this many events of the tab's posts (its answers' `accepted`). */
const answered = (tab: Page) => {
  let accepted = 0;
  tab.on('response', (res) => {
    if (res.url() === `${gateway.url}/collect` && res.status() === 200)
      res.json().then(
        (body: { accepted: number }) => (accepted += body.accepted),
        () => undefined,
      );
  });
  return (atLeast: number) => waitFor(async () => accepted >= atLeast, { what: `${atLeast} events accepted` });
};

const SIGNUP = `
  <form id="signup" action="/thanks" method="post">
    <input type="email" name="work" value="EMAIL">
    <input type="password" name="password" value="${PASSWORD}">
    <button>Sign up</button>
  </form>`;
const submit = (tab: Page, id: string) => tab.evaluate((formId) => (document.getElementById(formId) as HTMLFormElement).requestSubmit(), id);

describe('identification through the gateway and the visitors service', () => {
  it('when a visitor submits a sign-up form on a site that captures forms, then it is identified with method form, and its password never leaves the page', async () => {
    const email = uniqueEmail('form');
    await createSite('form capture', { capture_forms: true }, SIGNUP.replace('EMAIL', email.toUpperCase()));
    // The setting reaches the tag inside the per-site script the snippet loads.
    expect(page.snippet).not.toContain('data-capture-forms');
    const { context, tab, problems, bodies } = await openTab();
    await tab.goto(`${site.origin}/signup`);
    const vid = await waitFor(() => visitorId(tab), { what: 'the vid' });
    await Promise.all([tab.waitForURL(`${site.origin}/thanks`), submit(tab, 'signup')]);

    const identified = await waitForDetails(vid, (body) => body.email === email, 'the visitor identified by the form');
    expect(identified.identified_by).toMatchObject({ method: 'form', confidence: 0.6, verified: false });
    expect(bodies.length).toBeGreaterThan(0);
    expect(bodies.some((body) => body.includes(PASSWORD))).toBe(false);
    expect(problems).toEqual([]);
    await context.close();
  }, 60_000);

  it('when a visitor opens an email link, then it is identified with method email_link and the address bar keeps no token', async () => {
    await createSite('email link');
    const email = uniqueEmail('link');
    const issued = await manage('/account/link-tokens', { method: 'POST', body: { email } });
    expect(issued.status).toBe(201);
    const { context, tab, problems } = await openTab();
    await tab.goto(`${site.origin}/offer?utm_source=newsletter&gl=${issued.body.token}#plans`);
    const vid = await waitFor(() => visitorId(tab), { what: 'the vid' });
    expect(tab.url()).toBe(`${site.origin}/offer?utm_source=newsletter#plans`);

    const identified = await waitForDetails(vid, (body) => body.email === email, 'the visitor identified by the link');
    expect(identified).toMatchObject({ page_views: 1, last_page: '/offer', identified_by: { method: 'email_link', confidence: 1 } });
    expect(problems).toEqual([]);
    await context.close();
  }, 60_000);

  it("when a site requires consent, then nothing is stored in the browser before it, and the grant joins this page load's earlier views to the new visitor", async () => {
    await createSite('consent required', { consent: 'required' });
    // The setting travels in the per-site script, not in the snippet.
    expect(page.snippet).not.toContain('data-consent');
    const { context, tab, problems } = await openTab();
    const posts = answered(tab);
    await tab.goto(`${site.origin}/before-1`);
    await tab.evaluate(() => history.pushState({}, '', '/before-2'));
    await call(tab, 'identify', { email: uniqueEmail('waiting') });
    await posts(2);

    expect(await visitorCookies(context)).toEqual([]);
    expect(await storageLengths(tab)).toEqual([0, 0]);
    expect(await visitorId(tab)).toBeNull();

    await call(tab, 'consent', 'granted');
    const vid = await waitFor(() => visitorId(tab), { what: 'the vid minted on consent' });
    expect(vid).toMatch(VISITOR_ID_PATTERN);
    expect((await visitorCookies(context)).map((cookie) => cookie.value)).toEqual([vid]);
    expect(await tab.evaluate((key) => localStorage.getItem(`_glv:${key}`), page.siteKey)).toBe(JSON.stringify({ v: vid, g: 1 }));
    const stitched = await waitForDetails(vid, (body) => body.page_views === 2 && body.email !== undefined, 'the earlier views and the held identify joined');
    expect(stitched).toMatchObject({ page_views: 2, identified_by: { method: 'identify' } });
    expect(problems).toEqual([]);
    await context.close();
  }, 60_000);

  it('when the visitor denies consent, or its browser sends Global Privacy Control, then it stays cookieless and unidentified', async () => {
    await createSite('consent denied', { consent: 'required' });
    const denying = await openTab();
    const posts = answered(denying.tab);
    await denying.tab.goto(`${site.origin}/denied`);
    await call(denying.tab, 'consent', 'denied');
    await call(denying.tab, 'identify', { email: uniqueEmail('denied') });
    await denying.tab.evaluate(() => history.pushState({}, '', '/denied-2'));
    await posts(2);
    expect(await visitorCookies(denying.context)).toEqual([]);
    expect(await storageLengths(denying.tab)).toEqual([0, 0]);
    expect(await visitorId(denying.tab)).toBeNull();
    expect(denying.bodies.some((body) => body.includes('"type":"identify"'))).toBe(false);

    // GPC on a site that implies consent: treated as a denial; a grant changes nothing.
    await createSite('gpc');
    const gpc = await openTab({ gpc: true });
    const gpcPosts = answered(gpc.tab);
    await gpc.tab.goto(`${site.origin}/private`);
    await call(gpc.tab, 'consent', 'granted');
    await gpc.tab.evaluate(() => history.pushState({}, '', '/private-2'));
    await gpcPosts(2);
    expect(await visitorCookies(gpc.context)).toEqual([]);
    expect(await storageLengths(gpc.tab)).toEqual([0, 0]);
    expect(await visitorId(gpc.tab)).toBeNull();
    expect(gpc.bodies.every((body) => body.includes('"consent":"denied"') && body.includes('"gpc":true'))).toBe(true);
    expect([...denying.problems, ...gpc.problems]).toEqual([]);
    await Promise.all([denying.context.close(), gpc.context.close()]);
  }, 60_000);

  it('when two people identify on one device, then the visitor follows the newest and keeps both in its history', async () => {
    await createSite('shared device');
    const [first, second] = [uniqueEmail('first'), uniqueEmail('second')];
    const { context, tab, problems } = await openTab();
    await tab.goto(`${site.origin}/account`);
    const vid = await waitFor(() => visitorId(tab), { what: 'the vid' });
    await call(tab, 'identify', { email: first });
    await waitForDetails(vid, (body) => body.email === first, 'the first person');
    await tab.evaluate(() => history.pushState({}, '', '/account/switch'));
    await call(tab, 'identify', { email: second });

    const record = await waitForRecord(vid, (body) => body.identityHistory?.length === 2, 'both links in the history');
    expect(record.email).toBe(second);
    // Each link with the page it was made on.
    expect(
      record.identityHistory.map((link: { email: string; method: string; sourcePath: string }) => [link.email, link.method, link.sourcePath]).sort(),
    ).toEqual(
      [
        [first, 'identify', '/account'],
        [second, 'identify', '/account/switch'],
      ].sort(),
    );
    expect(problems).toEqual([]);
    await context.close();
  }, 60_000);

  it("when a bot's user agent loads a page, then the site counts a bot and no visitor", async () => {
    const { id } = await createSite('bots');
    const { context, tab } = await openTab({ userAgent: null }); // headless Chromium's own: HeadlessChrome
    const answer = tab.waitForResponse(`${gateway.url}/collect`);
    await tab.goto(`${site.origin}/crawled`);
    expect(await (await answer).json()).toEqual({ vid: null, accepted: 0, bot: true });
    expect(await visitorId(tab)).toBeNull();
    const stats = await waitFor(
      async () => {
        const answer = await manage(`/account/sites/${id}/stats`);
        return answer.status === 200 && answer.body.bots >= 1 && answer.body;
      },
      { what: 'the bot counted', timeoutMs: 30_000, intervalMs: 250 },
    );
    expect(stats).toEqual({ page_views: 0, visitors: 0, identified_visitors: 0, bots: 1 });
    await context.close();
  }, 60_000);

  it('when a page is viewed from a business range, then the visitor has the company with its location and firmographics; from a home, mobile or hosting range only the network, unidentified; the companies view counts the company alone', async () => {
    const created = await createSite('company from ip');
    const view = async (address: string) => {
      const { context, tab, problems } = await openTab({ forwardedFor: address });
      await tab.goto(`${site.origin}/pricing`);
      const vid = await waitFor(() => visitorId(tab), { what: 'the vid' });
      const body = await waitForDetails(vid, (b) => b.page_views === 1 && b.location !== undefined, `the located page view from ${address}`);
      expect(problems).toEqual([]);
      await context.close();
      return body;
    };
    const london = { country: 'GB', region: 'England', city: 'London', time_zone: 'Europe/London' };
    expect(await view('81.2.69.142')).toMatchObject({
      company: ACME.name,
      identified_by: { method: 'ip_company', confidence: 0.5 },
      network: { name: ACME.name, type: 'business', asn: 64500 },
      location: london,
      company_profile: { domain: ACME.domain, industry: 'Industrial Machinery', size: '51-200', employees: 150 },
    });
    for (const [address, type, city] of [
      ['89.160.20.115', 'isp', 'Linköping'],
      ['2.125.160.217', 'mobile', 'Boxford'],
      ['216.160.83.57', 'hosting', 'Milton'],
    ] as const) {
      const anonymous = await view(address);
      expect(anonymous).toMatchObject({ network: { type }, location: { city } });
      for (const field of ['company', 'identified_by', 'company_profile', 'email', 'name'])
        expect([address, field, anonymous[field]]).toEqual([address, field, undefined]);
    }
    const companies = await manage(`/account/companies?site=${created.id}`);
    expect(companies.status).toBe(200);
    expect(companies.body.items).toEqual([
      expect.objectContaining({
        key: ACME.domain,
        name: ACME.name,
        visitors: 1,
        identified: 0,
        sessions: 1,
        page_views: 1,
        network_type: 'business',
        location: london,
      }),
    ]);
  }, 90_000);
});
