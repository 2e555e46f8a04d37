/// <reference lib="dom" />
// The console's Sites and Visitors pages in a real headless Chromium against a real gateway and
// visitors service (Kafka and Postgres between them): a person adds a site, copies its tag, sees
// the first page view arrive, reads it on the traffic chart and finds the visitors, identified
// first. Page views are posted to /collect by the test as the tag would (text/plain, the site's
// Origin). Each page is saved as a full-page screenshot under artifacts/console/.
import { request, uniqueEmail, waitFor } from '../../../test/support/stack';
import {
  collect as collectAt,
  goTo,
  pageView,
  screenshot,
  signedInConsole as signedIn,
  startConsoleGateway,
  uniqueId,
  uniqueOrigin,
  useConsole,
} from '../../../test/support/console';

const HOUR_MS = 3_600_000;

const ui = useConsole("the console's sites tests", () => startConsoleGateway());

/** A signed-in console tab (clipboard allowed) that records script errors and CSP violations and accepts confirm(). */
const signedInConsole = (name: string) => signedIn(ui.browser, ui.stack.gateway.url, name, { clipboard: true });

/** What the tag sends from the site's origin; answers the visitor id. */
const collect = (origin: string, siteKey: string, events: object[], vid?: string) =>
  collectAt(ui.stack.gateway.url, origin, siteKey, events, vid ? { vid } : {});

describe('console: sites, traffic and visitors', () => {
  it('when a person adds a site and its tag sends page views, then the snippet copies, the first page view shows, the chart counts it and the visitors are listed identified first', async () => {
    const { page, problems, key: apiKey } = await signedInConsole('console sites');
    const origin = uniqueOrigin('shop');
    await goTo(page, 'Sites');
    // The heading is drawn at once, the list once the API answers: wait for it (one match, or strict mode fails).
    await page.getByText('No sites yet').waitFor();

    // Add the site: two origins (the second with a path, which the API refuses), then fixed.
    await page.getByLabel('Name', { exact: true }).fill('Shop');
    await page.getByLabel('Origins').fill(`${origin}\n${origin}/not-an-origin`);
    await page.getByLabel('Events the browser may track').fill('demo requested');
    await page.getByRole('button', { name: 'Add site' }).click();
    await page
      .getByRole('alert')
      .filter({ hasText: /not a valid event name/ })
      .waitFor();
    await page.getByLabel('Events the browser may track').fill('demo_requested');
    await page.getByRole('button', { name: 'Add site' }).click();
    await page
      .getByRole('alert')
      .filter({ hasText: `"${origin}/not-an-origin" is not an origin` })
      .waitFor();
    await page.getByLabel('Origins').fill(origin);
    await page.getByRole('button', { name: 'Add site' }).click();

    // The install section: the snippet from the API's answer, with the key and the SRI hash.
    const install = page.getByRole('region', { name: 'Install “Shop”' });
    await install.waitFor();
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Install “Shop”');
    const { items } = (await request(`${ui.stack.gateway.url}/account/sites`, { headers: { authorization: `Bearer ${apiKey}` } })).body;
    expect(items).toHaveLength(1);
    const site = items[0];
    expect(site.track_events).toEqual(['demo_requested']);
    const snippet = await page.locator('#install-snippet').textContent();
    expect(snippet).toBe(site.snippet.html);
    // The per-site script: the site's settings travel in it, so the snippet never changes with them.
    expect(snippet).toBe(`<script async src="${ui.stack.gateway.url}/s/${site.key}.js"></script>`);
    expect(await install.getByText('window.glimpse = window.glimpse ||').count()).toBe(1);
    expect(page.url()).toContain(`#/sites?site=${site.id}`);

    // Copy puts exactly the snippet on the clipboard.
    await install.getByRole('button', { name: 'Copy snippet' }).click();
    await page.getByRole('status').filter({ hasText: 'Copied to the clipboard.' }).waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(site.snippet.html);

    // No page view yet: the check waits.
    const check = page.locator('#first-view');
    expect(await check.textContent()).toMatch(/^Waiting for the first page view/);
    expect(await check.getAttribute('class')).toContain('pending');
    await screenshot(page, 'sites-waiting');

    // Two visitors: one identifies itself, then an anonymous one is seen after it.
    const before = Math.floor(Date.now() / HOUR_MS);
    const email = uniqueEmail('console-visitor');
    const known = await collect(origin, site.key, [pageView(origin, '/pricing', 'Pricing')]);
    await collect(origin, site.key, [{ type: 'identify', id: uniqueId('id'), email, traits: {}, path: '/pricing' }], known);
    const anonymous = await collect(origin, site.key, [pageView(origin, '/blog/hello', 'Hello')]);
    const after = Math.floor(Date.now() / HOUR_MS);
    expect(anonymous).not.toBe(known);

    // The check turns green by itself (it polls the traffic every few seconds).
    await check.filter({ hasText: 'First page view received' }).waitFor({ timeout: 30_000 });
    expect(await check.getAttribute('class')).toContain('ok');

    // The visitors page refreshes by itself until both are there, the identified one first.
    await goTo(page, 'Visitors');
    const rows = page.locator('table tbody tr');
    await waitFor(async () => (await rows.count()) === 2 && (await rows.nth(0).textContent())?.includes('identify'), {
      timeoutMs: 40_000,
      intervalMs: 500,
      what: 'two visitors, the identified one first',
    });
    const cells = (row: number) => rows.nth(row).locator('th, td').allTextContents();
    const [first, second] = [await cells(0), await cells(1)];
    // The score: a page view (1 point) and a session (3) with the default weights.
    expect(first.slice(0, 5)).toEqual([known, '4', email, '1', '1']);
    expect(first[6]).toBe('/pricing');
    expect(first[9]).toMatch(/^identify, /);
    expect(second.slice(0, 5)).toEqual([anonymous, '4', 'anonymous', '1', '1']);
    expect(second[6]).toBe('/blog/hello');
    expect(second[9]).toBe('–');
    expect(await page.locator('#visitors-updated').textContent()).toMatch(/^Updated /);
    await screenshot(page, 'visitors');

    // Back to the site: the chart has the hour's two page views and two visitors.
    await goTo(page, 'Sites');
    await page.getByRole('link', { name: 'Install and traffic of Shop' }).click();
    await install.waitFor();
    const summary = page.locator('#traffic-summary');
    await summary.filter({ hasText: /^2 page views in the last 24 hours/ }).waitFor();
    const bars = await page.locator('svg.traffic-chart rect.bar').evaluateAll((rects) =>
      rects.map((r) => ({
        hour: r.getAttribute('data-hour')!,
        pageViews: Number(r.getAttribute('data-page-views')),
        title: r.querySelector('title')!.textContent!,
      })),
    );
    expect(bars).toHaveLength(24);
    expect(bars.reduce((sum, b) => sum + b.pageViews, 0)).toBe(2);
    if (before === after) {
      const hour = bars.find((b) => Date.parse(b.hour) === after * HOUR_MS);
      expect(hour?.title).toMatch(/: 2 page views, 2 visitors$/);
      expect(bars.at(-1)).toBe(hour); // the current hour is the last bar
    }
    // Axis labels and the legend are in the page.
    expect(await page.locator('svg.traffic-chart .x-axis text').count()).toBeGreaterThanOrEqual(8);
    expect(await page.locator('svg.traffic-chart .grid text').first().textContent()).toBe('0');
    expect(await page.locator('.legend').textContent()).toMatch(/Page views.*Visitors/);
    await page.locator('svg.traffic-chart').scrollIntoViewIfNeeded();
    await screenshot(page, 'sites');
    expect(problems).toEqual([]);
    await page.context().close();
  }, 150_000);

  it('when a person edits a site’s origins and then deletes it, then the list shows the new origin and then no site', async () => {
    const { page, problems } = await signedInConsole('console sites edit');
    const [origin, other] = [uniqueOrigin('old'), uniqueOrigin('new')];
    await goTo(page, 'Sites');
    await page.getByLabel('Name', { exact: true }).fill('Blog');
    await page.getByLabel('Origins').fill(origin);
    await page.getByRole('button', { name: 'Add site' }).click();
    await page.getByRole('region', { name: 'Install “Blog”' }).waitFor();

    await page.getByRole('button', { name: 'Edit Blog' }).click();
    const form = page.getByRole('form', { name: 'Edit “Blog”' });
    expect(await form.getByLabel('Origins').inputValue()).toBe(origin);
    await form.getByLabel('Origins').fill(`${other}\n${origin.toUpperCase()}:443`);
    await form.getByRole('button', { name: 'Save changes' }).click();
    await page.getByRole('status').filter({ hasText: 'Site “Blog” saved.' }).waitFor();
    const row = page.getByRole('row').filter({ has: page.getByRole('rowheader', { name: 'Blog', exact: true }) });
    expect(await row.locator('ul li').allTextContents()).toEqual([other, origin]); // normalised by the API

    await row.getByRole('button', { name: 'Delete Blog' }).click();
    await page.getByRole('status').filter({ hasText: 'Site “Blog” deleted.' }).waitFor();
    await page.getByText('No sites yet').waitFor();
    expect(await page.getByRole('region', { name: 'Install “Blog”' }).count()).toBe(0);
    expect(problems).toEqual([]);
    await page.context().close();
  }, 60_000);
});
