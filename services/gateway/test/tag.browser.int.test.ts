/// <reference lib="dom" />
// The site tag end to end in a real headless Chromium: a small site this test serves on two
// origins (http://127.0.0.1:P registered, http://localhost:P not) installs the tag from a real
// gateway, which produces to Kafka for a real visitors service; the details lookup then answers
// for the visitor the tag made. (The DOM types are for the functions page.evaluate runs in the page.)
import { type Browser, type Page } from 'playwright-core';
import type { RunningGateway } from '@glimpse/gateway';
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

beforeAll(async () => {
  [browser, visitors, enrichment] = await Promise.all([
    launchChromium("the site tag's browser tests"),
    startTestVisitorsService(),
    startTestEnrichmentService(),
  ]);
  gateway = await startTestGateway({ VISITORS_URL: visitors.url, ENRICHMENT_URL: enrichment.url });
  site = await startTestSite(() => page);
  const probe = await browser.newContext();
  userAgent = (await (await probe.newPage()).evaluate(() => navigator.userAgent)).replace('HeadlessChrome', 'Chrome');
  await probe.close();
  const { accountId } = await createTestAccount('site tag');
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
  await closeTestDb();
});

/** A site of the test account for the registered origin; the site's pages install the tag from `collector`. */
async function createSite(name: string, collector = gateway.url): Promise<{ id: string; key: string; snippet: { html: string; integrity: string } }> {
  const created = await request(`${gateway.url}/account/sites`, {
    method: 'POST',
    headers: { authorization: `Bearer ${manageKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name, origins: [site.origin] }),
  });
  expect(created.status).toBe(201);
  page = { collector, siteKey: created.body.key };
  return created.body;
}

/** A fresh browser context (no cookies, no storage) and tab that records what the page throws and logs as errors. */
async function openTab(): Promise<{ tab: Page; problems: string[] }> {
  const tab = await (await browser.newContext({ userAgent })).newPage();
  const problems: string[] = [];
  tab.on('pageerror', (err) => problems.push(err.message));
  // A request the browser could not complete is logged by the browser itself, not thrown by the tag.
  tab.on('console', (msg) => msg.type() === 'error' && !msg.text().startsWith('Failed to load resource') && problems.push(msg.text()));
  return { tab, problems };
}

/** How many posts to /collect the gateway has answered 403 (its request metric). */
async function forbiddenCollects(): Promise<number> {
  const metrics = await (await fetch(`${gateway.url}/metrics`)).text();
  const line = metrics
    .split('\n')
    .find(
      (l) =>
        l.startsWith('http_request_duration_seconds_count{') && l.includes('route="/collect"') && l.includes('method="POST"') && l.includes('status="403"'),
    );
  return line ? Number(line.split(' ').pop()) : 0;
}

type Glimpse = { (...args: unknown[]): void; visitorId(): string | null };
const visitorId = (tab: Page) => tab.evaluate(() => (window as unknown as { glimpse?: Glimpse }).glimpse?.visitorId?.() ?? null);
const details = (vid: string) => request(`${gateway.url}/visitors/${vid}/details`, { headers: { authorization: `Bearer ${lookupKey}` } });
const waitForDetails = (vid: string, ready: (body: Record<string, unknown>) => boolean, what: string) =>
  waitFor(
    async () => {
      const answer = await details(vid);
      return answer.status === 200 && ready(answer.body) && answer.body;
    },
    { what, timeoutMs: 30_000, intervalMs: 250 },
  );

describe('the site tag through the gateway and the visitors service', () => {
  it('when a visitor browses a site and identifies, then the details lookup returns the person and exactly the page views made, the same visitor after a reload, another in another browser', async () => {
    await createSite('tag end to end');
    const email = uniqueEmail('tag');
    const { tab, problems } = await openTab();
    await tab.goto(`${site.origin}/home?utm_source=news&utm_campaign=launch`, { referer: 'https://search.example/' });
    const vid = await waitFor(() => visitorId(tab), { what: 'the visitor id the gateway minted' });
    expect(vid).toMatch(VISITOR_ID_PATTERN);

    await tab.evaluate(async (personEmail) => {
      history.pushState({}, '', '/pricing');
      history.pushState({}, '', '/signup?plan=pro');
      await new Promise((resolve) => {
        addEventListener('popstate', resolve, { once: true });
        history.back();
      });
      await new Promise((resolve) => {
        addEventListener('hashchange', resolve, { once: true });
        location.hash = 'faq';
      });
      (window as unknown as { glimpse: Glimpse }).glimpse('identify', { email: personEmail, plan: 'pro' });
    }, email);

    // Four page views: /home, /pricing, /signup, /pricing again (popstate); the hash change is none.
    const identified = await waitForDetails(vid, (body) => body.email === email, 'the identified visitor');
    expect(identified).toMatchObject({ email, page_views: 4, sessions: 1, last_page: '/pricing', identified_by: { method: 'identify' } });
    expect(await tab.evaluate((key) => JSON.parse(localStorage.getItem(`_glv:${key}`) ?? 'null') as unknown, page.siteKey)).toEqual({ v: vid, g: 0 });

    await tab.reload();
    await waitFor(async () => (await tab.evaluate(() => document.readyState)) === 'complete' && visitorId(tab), { what: 'the tag after the reload' });
    expect(await visitorId(tab)).toBe(vid);
    expect(await waitForDetails(vid, (body) => body.page_views === 5, 'the reload counted')).toMatchObject({ email, page_views: 5 });

    const other = await openTab();
    await other.tab.goto(`${site.origin}/home`);
    const otherVid = await waitFor(() => visitorId(other.tab), { what: "the other browser's visitor id" });
    expect(otherVid).toMatch(VISITOR_ID_PATTERN);
    expect(otherVid).not.toBe(vid);
    const stranger = await waitForDetails(otherVid, (body) => body.page_views === 1, 'the other visitor');
    expect(stranger.email).toBeUndefined();

    expect(problems).toEqual([]);
    expect(other.problems).toEqual([]);
    await Promise.all([tab.context().close(), other.tab.context().close()]);
  }, 90_000);

  it('when the tag runs on an origin the site does not list, then the gateway refuses it and nothing is recorded', async () => {
    const { id } = await createSite('tag foreign origin');
    const { tab, problems } = await openTab();
    const refused = () => forbiddenCollects();
    const before = await refused();
    await tab.goto(`${site.foreignOrigin}/elsewhere`);
    // The gateway answers 403 without CORS headers: the page sees a failed request, and the tag tries again (bounded).
    await waitFor(async () => (await refused()) >= before + 2, { what: 'the foreign posts refused' });
    expect(await visitorId(tab)).toBeNull();
    expect(problems.every((problem) => /blocked by CORS policy/.test(problem))).toBe(true);

    // A page view from the registered origin afterwards is the only one the site ever gets.
    const { tab: own } = await openTab();
    await own.goto(`${site.origin}/own`);
    await waitFor(() => visitorId(own), { what: 'the registered origin accepted' });
    const traffic = async () =>
      (await request(`${gateway.url}/account/sites/${id}/traffic`, { headers: { authorization: `Bearer ${manageKey}` } })).body as {
        hours: Array<{ pageViews: number; visitors: number }>;
      };
    const total = (t: Awaited<ReturnType<typeof traffic>>) => t.hours.reduce((sum, hour) => sum + hour.pageViews, 0);
    await waitFor(async () => total(await traffic()) >= 1, { what: 'the own page view in the traffic' });
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const hours = (await traffic()).hours;
    expect([total({ hours }), hours.reduce((sum, hour) => sum + hour.visitors, 0)]).toEqual([1, 1]);
    await Promise.all([tab.context().close(), own.context().close()]);
  }, 60_000);

  it("when the page's CSP allows scripts only from the gateway, then the console's install snippet (the async per-site script) alone runs the tag", async () => {
    const created = await createSite('tag strict csp');
    page = { ...page, strictCsp: true, snippet: created.snippet.html };
    expect(created.snippet.html).toBe(`<script async src="${gateway.url}/s/${page.siteKey}.js"></script>`);
    const { tab, problems } = await openTab();
    const response = await tab.goto(`${site.origin}/strict`);
    expect(response!.headers()['content-security-policy']).toBe(`script-src ${gateway.url}`);
    const vid = await waitFor(() => visitorId(tab), { what: 'the tag under a strict CSP' });
    await waitForDetails(vid, (body) => body.page_views === 1 && body.last_page === '/strict', 'the page view under a strict CSP');
    expect(problems).toEqual([]);
    await tab.context().close();
  });

  it('when the gateway goes down under a loaded page, then the tag throws nothing into it', async () => {
    const own = await startTestGateway({ VISITORS_URL: visitors.url, ENRICHMENT_URL: enrichment.url });
    await createSite('tag gateway down', own.url);
    const { tab, problems } = await openTab();
    await tab.goto(`${site.origin}/before`);
    await waitFor(() => visitorId(tab), { what: 'the tag running' });
    await own.stop();

    const failed: string[] = [];
    tab.on('requestfailed', (req) => req.url().endsWith('/collect') && failed.push(req.url()));
    await tab.evaluate(() => {
      const glimpse = (window as unknown as { glimpse: Glimpse }).glimpse;
      history.pushState({}, '', '/after');
      glimpse('identify', { email: 'down@example.com' });
      glimpse('track', 'clicked', { n: 1 });
    });
    await waitFor(async () => failed.length >= 2, { what: 'the tag trying again' });
    // Leaving the page: what is left goes by beacon, into the void.
    await tab.evaluate(() => {
      document.dispatchEvent(new Event('visibilitychange'));
      dispatchEvent(new PageTransitionEvent('pagehide'));
    });
    await tab.goto('about:blank');
    expect(problems).toEqual([]);
    await tab.context().close();
  });
});
