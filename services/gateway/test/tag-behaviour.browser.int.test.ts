/// <reference lib="dom" />
// The site tag's own behaviour in a real headless Chromium, on a small site this test serves,
// against a collector that serves the real tag and records what it posts (and answers as a test
// needs: retries, failures). The whole path through the gateway and the visitors service is
// tag.browser.int.test.ts. (The DOM types are for the functions page.evaluate runs in the page.)
import { type Browser, type Page } from 'playwright-core';
import { COLLECTED_ID_PATTERN } from '@glimpse/messaging';
import { launchChromium } from '../../../test/support/browser';
import { waitFor } from '../../../test/support/stack';
import { RECEIVER_VID, receivedEvents, startReceiver, startTestSite, type CollectedPost, type PageOptions, type Receiver, type TestSite } from './tag-site';

const SITE_KEY = 'glp_behaviourtestkey';

let browser: Browser;
let receiver: Receiver;
let site: TestSite;
let pageOptions: Partial<PageOptions> = {};

beforeAll(async () => {
  [browser, receiver] = await Promise.all([launchChromium("the site tag's browser tests"), startReceiver(() => site.origin)]);
  site = await startTestSite(() => ({ collector: receiver.url, siteKey: SITE_KEY, ...pageOptions }));
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await site?.stop();
  await receiver?.stop();
});

beforeEach(() => {
  receiver.posts.length = 0;
  receiver.answer = (post) => ({ status: 200, body: { vid: post.body.vid ?? RECEIVER_VID, accepted: post.body.events.length } });
  pageOptions = {};
});

/** A fresh browser context and tab that records what the page throws and logs as errors. */
async function openTab(): Promise<{ page: Page; problems: string[] }> {
  const context = await browser.newContext();
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('pageerror', (err) => problems.push(err.message));
  // A request the browser could not complete is logged by the browser itself, not thrown by the tag.
  page.on('console', (msg) => msg.type() === 'error' && !msg.text().startsWith('Failed to load resource') && problems.push(msg.text()));
  return { page, problems };
}

const eventsOf = (type: string) => receivedEvents(receiver).filter((event) => event.type === type);
const waitForEvents = (type: string, count: number, what = `${count} ${type} events`, timeoutMs = 10_000) =>
  waitFor(async () => eventsOf(type).length >= count && eventsOf(type), { what, timeoutMs });
const visitorId = (page: Page) => page.evaluate(() => (window as unknown as { glimpse: { visitorId(): string | null } }).glimpse.visitorId());

describe('the site tag in a browser', () => {
  it('when a visitor loads a page and navigates inside the app, then each page is counted once with its path, title, referrer and UTM, and identify ties the visitor', async () => {
    const { page, problems } = await openTab();
    const first = `${site.origin}/home?utm_source=news&utm_medium=email&utm_campaign=launch`;
    await page.goto(first, { referer: 'https://search.example/q' });
    await waitFor(() => visitorId(page), { what: 'the vid from the first answer' });

    await page.evaluate(async () => {
      document.title = 'Page A';
      history.pushState({}, '', '/a');
      document.title = 'Page B';
      history.pushState({}, '', '/b?tab=2');
      await new Promise((resolve) => {
        addEventListener('popstate', resolve, { once: true });
        history.back();
      });
      await new Promise((resolve) => {
        addEventListener('hashchange', resolve, { once: true });
        location.hash = 'section';
      });
      history.replaceState(null, '', '/a#other');
      (window as unknown as { glimpse(...args: unknown[]): void }).glimpse('identify', { email: 'ada@example.com', plan: 'pro', nested: { no: 1 } });
    });
    await waitForEvents('identify', 1);

    const views = eventsOf('pageview');
    expect(views.map((view) => [view.path, view.title, view.referrer])).toEqual([
      ['/home', 'Page /home', 'https://search.example/q'],
      // A referrer is its origin and path only.
      ['/a', 'Page A', `${site.origin}/home`],
      ['/b', 'Page B', `${site.origin}/a`],
      ['/a', 'Page B', `${site.origin}/b`],
    ]);
    expect(views[0]).toMatchObject({ url: first, utm: { source: 'news', medium: 'email', campaign: 'launch' } });
    // Query keys the site does not allow (none here: /g.js passes no settings) are not sent.
    expect(views[2]).toMatchObject({ url: `${site.origin}/b` });
    expect(views.slice(1).every((view) => view.utm === undefined)).toBe(true);
    expect(eventsOf('identify')).toEqual([expect.objectContaining({ email: 'ada@example.com', traits: { plan: 'pro' }, path: '/a' })]);

    // Simple CORS requests from the site's origin; the vid of the first answer goes with the rest.
    const ids = receivedEvents(receiver).map((event) => event.id);
    expect(ids.every((id) => COLLECTED_ID_PATTERN.test(id))).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
    expect(receiver.posts.every((post) => post.origin === site.origin && post.body.site === SITE_KEY && post.contentType?.startsWith('text/plain'))).toBe(true);
    expect(receiver.posts[0]!.body.vid).toBeUndefined();
    expect(receiver.posts.slice(1).every((post) => post.body.vid === RECEIVER_VID)).toBe(true);
    expect(await page.evaluate((key) => localStorage.getItem(`_glv:${key}`), SITE_KEY)).toBe(JSON.stringify({ v: RECEIVER_VID, g: 0 }));

    // Nothing more comes in: every page was counted once.
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect(eventsOf('pageview')).toHaveLength(4);
    expect(problems).toEqual([]);
    await page.context().close();
  });

  it('when time passes on a page, then its visible seconds are sent on navigation, and by beacon when the page goes away', async () => {
    const { page, problems } = await openTab();
    await page.goto(`${site.origin}/read`);
    await page.waitForTimeout(1300);
    await page.evaluate(() => history.pushState({}, '', '/read/2'));
    await waitForEvents('pageview', 2);
    await page.waitForTimeout(1300);
    await page.goto(`${site.origin}/next`); // the document of /read/2 is hidden and unloaded
    await waitForEvents('pageview', 3);
    const engagement = await waitForEvents('engagement', 2);

    const [read, second] = eventsOf('pageview');
    expect(engagement.map((e) => e.pageViewId)).toEqual([read!.id, second!.id]);
    for (const e of engagement) expect([1, 2, 3]).toContain(e.seconds);
    // The unloading page's time went by beacon (a no-cors request), the in-app one by fetch.
    const postOf = (id: string) => receiver.posts.find((post) => post.body.events.some((event) => event.id === id))!;
    expect(postOf(engagement[0]!.id).secFetchMode).toBe('cors');
    expect(postOf(engagement[1]!.id).secFetchMode).toBe('no-cors');
    expect(problems).toEqual([]);
    await page.context().close();
  });

  it('when the collector answers 503 with Retry-After, then the same batch comes again after it; a 400 is not retried', async () => {
    // Only this page's posts count: the previous test's closing page may still send its last beacon.
    const ofThisPage = (post: CollectedPost) => post.body.events.some((event) => event.path === '/retry');
    let failures = 1;
    receiver.answer = (post) =>
      ofThisPage(post) && failures-- > 0
        ? { status: 503, headers: { 'Retry-After': '1' }, body: { error: 'unavailable' } }
        : { status: 200, body: { vid: RECEIVER_VID, accepted: post.body.events.length } };
    const { page, problems } = await openTab();
    await page.goto(`${site.origin}/retry`);
    await waitFor(async () => receiver.posts.filter(ofThisPage).length >= 2, { what: 'the retry' });
    const [failed, retried] = receiver.posts.filter(ofThisPage);
    expect(retried!.body.events.map((event) => event.id)).toEqual(failed!.body.events.map((event) => event.id));
    expect(retried!.at - failed!.at).toBeGreaterThanOrEqual(950);
    await waitFor(() => visitorId(page), { what: 'the vid' });

    receiver.answer = () => ({ status: 400, body: { error: 'invalid_request' } });
    await page.evaluate(() => (window as unknown as { glimpse(...args: unknown[]): void }).glimpse('track', 'clicked', { n: 1 }));
    await waitForEvents('track', 1);
    await page.waitForTimeout(1500);
    expect(eventsOf('track')).toHaveLength(1);
    expect(problems).toEqual([]);
    await page.context().close();
  });

  it('when the collector cannot be reached, then each batch is tried at most five times and nothing is thrown into the page', async () => {
    receiver.answer = () => ({ status: 0 }); // the socket is dropped: a network error in the page
    const { page, problems } = await openTab();
    await page.goto(`${site.origin}/offline`);
    await page.evaluate(() => {
      const glimpse = (window as unknown as { glimpse(...args: unknown[]): void }).glimpse;
      history.pushState({}, '', '/offline/2');
      glimpse('identify', { email: 'grace@example.com' });
    });
    const firstView = (await waitForEvents('pageview', 1))[0]!.id;
    const tries = () => receiver.posts.filter((post) => post.body.events.some((event) => event.id === firstView)).length;
    await waitFor(async () => tries() >= 5, { what: 'five tries', timeoutMs: 25_000 });
    await page.waitForTimeout(3000);
    expect(tries()).toBe(5);
    expect(problems).toEqual([]);
    await page.context().close();
  }, 45_000);

  it('when the page calls the queue stub and the API with anything at all, then nothing is thrown and the valid calls are sent', async () => {
    pageOptions = {
      stubCalls:
        "glimpse('identify', {email: {toString: function () { throw new Error('boom'); }}}); glimpse('identify', {email: 'queued@example.com'}); glimpse();",
    };
    const { page, problems } = await openTab();
    await page.goto(`${site.origin}/stub`);
    await waitForEvents('identify', 1);
    const thrown = await page.evaluate(() => {
      const glimpse = (window as unknown as { glimpse(...args: unknown[]): unknown }).glimpse;
      const hostile = {
        toString: () => {
          throw new Error('boom');
        },
      };
      const calls: unknown[][] = [
        [],
        ['identify'],
        ['identify', null],
        ['identify', { email: hostile }],
        ['track'],
        ['track', hostile],
        ['track', 'ok', 'not an object'],
        ['track', 'listed', [1, 2]],
        ['unknown', 1],
        [hostile],
      ];
      return calls.filter((args) => {
        try {
          glimpse(...args);
          return false;
        } catch {
          return true;
        }
      }).length;
    });
    expect(thrown).toBe(0);
    await waitForEvents('track', 2);
    expect(eventsOf('identify').map((event) => event.email)).toEqual(['queued@example.com']);
    expect(eventsOf('track').map((event) => [event.event, event.properties])).toEqual([
      ['ok', {}],
      ['listed', {}],
    ]);
    expect(problems).toEqual([]);
    await page.context().close();
  });

  it('when the tag is installed twice, or under a strict CSP without inline script, then the page is counted once', async () => {
    pageOptions = { twice: true, strictCsp: true };
    const { page, problems } = await openTab();
    await page.goto(`${site.origin}/twice`);
    await waitFor(() => visitorId(page), { what: 'the vid' });
    await page.waitForTimeout(500);
    expect(eventsOf('pageview').map((event) => event.path)).toEqual(['/twice']);
    expect(problems).toEqual([]);
    await page.context().close();
  });
});
