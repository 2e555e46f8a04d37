/// <reference lib="dom" />
// The console's identification pages in a real headless Chromium against a real gateway and
// visitors service (Kafka and Postgres between them): a site's identification settings round trip
// (form, list, snippet, edit), its Stats (24 h) line; a visitor identified twice (identify, then a
// form with another email) shows both links with method, confidence, time and triggering page; a
// page rule created and deleted; an email link's ?gl= parameter shown and copied. Page views are
// posted to /collect by the test as the tag would. Screenshots go to artifacts/console/.
import { type Page } from 'playwright-core';
import { testDb, uniqueEmail, waitFor } from '../../../test/support/stack';
import {
  accountApi,
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

const ui = useConsole("the console's identification tests", () => startConsoleGateway());

/** A signed-in console tab (clipboard allowed) that records script errors and accepts confirm(). */
const signedInConsole = (name: string) => signedIn(ui.browser, ui.stack.gateway.url, name, { viewport: { width: 1200, height: 800 }, clipboard: true });

const status = (page: Page, text: string | RegExp) => page.getByRole('status').filter({ hasText: text }).waitFor();

const api = (key: string, pathAndQuery: string, init: { method?: string; body?: unknown } = {}) => accountApi(ui.stack.gateway.url, key, pathAndQuery, init);

/** What the tag sends from the site's origin; answers the visitor id. */
const collect = (origin: string, siteKey: string, events: object[], vid?: string) =>
  collectAt(ui.stack.gateway.url, origin, siteKey, events, vid ? { vid } : {});

describe('console: identification', () => {
  it('when a person sets a site to capture forms, require consent and ignore GPC, then the API, the list and the snippet say so, and an edit back to implied consent is saved', async () => {
    const { page, problems, key } = await signedInConsole('console identification settings');
    const origin = uniqueOrigin('forms');
    await goTo(page, 'Sites');
    await page.getByLabel('Name', { exact: true }).fill('Forms');
    await page.getByLabel('Origins').fill(origin);
    expect(await page.getByLabel('Capture forms').isChecked()).toBe(false); // the defaults
    expect(await page.getByLabel('Consent', { exact: true }).inputValue()).toBe('implied');
    expect(await page.getByLabel('Honour Global Privacy Control').isChecked()).toBe(true);
    await page.getByLabel('Capture forms').check();
    await page.getByLabel('Consent', { exact: true }).selectOption('required');
    await page.getByLabel('Honour Global Privacy Control').uncheck();
    await page.getByRole('button', { name: 'Add site' }).click();
    const install = page.getByRole('region', { name: 'Install “Forms”' });
    await install.waitFor();

    const { items } = (await api(key, 'sites')).body;
    expect(items).toHaveLength(1);
    expect(items[0]).toMatchObject({ capture_forms: true, consent: 'required', honor_gpc: false });
    const snippet = await page.locator('#install-snippet').textContent();
    // The settings travel in the per-site script the snippet loads, not in attributes.
    expect(snippet).not.toMatch(/data-(capture-forms|consent|honor-gpc)/);
    const script = await (await fetch(`${ui.stack.gateway.url}/s/${items[0].key}.js`)).text();
    expect(script).toContain(`({"site":"${items[0].key}","consent":"required","forms":true,"gpc":false,"query":[]});`);
    const row = page.getByRole('row').filter({ has: page.getByRole('rowheader', { name: 'Forms', exact: true }) });
    expect(await row.locator('.settings div').allTextContents()).toEqual(['Forms captured', 'Consent required', 'GPC ignored', 'No query keys kept']);
    // A site without page views: its stats line says zero.
    await row.locator('.site-stats').filter({ hasText: '0 page views, 0 visitors, 0 identified, 0 bot page views' }).waitFor();
    expect(await install.locator('.settings div').allTextContents()).toEqual(['Forms captured', 'Consent required', 'GPC ignored', 'No query keys kept']);

    // The edit form starts from the saved settings; consent back to implied.
    await row.getByRole('button', { name: 'Edit Forms' }).click();
    const form = page.getByRole('form', { name: 'Edit “Forms”' });
    expect(await form.getByLabel('Capture forms').isChecked()).toBe(true);
    expect(await form.getByLabel('Consent', { exact: true }).inputValue()).toBe('required');
    expect(await form.getByLabel('Honour Global Privacy Control').isChecked()).toBe(false);
    await form.getByLabel('Consent', { exact: true }).selectOption('implied');
    await form.getByRole('button', { name: 'Save changes' }).click();
    await status(page, 'Site “Forms” saved.');
    expect((await api(key, `sites/${items[0].id}`)).body).toMatchObject({ capture_forms: true, consent: 'implied', honor_gpc: false });
    expect(await row.locator('.settings div').allTextContents()).toEqual(['Forms captured', 'Consent implied', 'GPC ignored', 'No query keys kept']);
    expect(await page.locator('#install-snippet').textContent()).not.toContain('data-consent');
    await screenshot(page, 'sites-identification');
    expect(problems).toEqual([]);
    await page.context().close();
  }, 90_000);

  it('when a person adds a site that requires identity verification, then its identity secret is shown once, and a rotation shows a new one that the API keeps', async () => {
    const { page, problems, key } = await signedInConsole('console identity secret');
    const origin = uniqueOrigin('verified');
    await goTo(page, 'Sites');
    expect(await page.getByLabel('Identity verification').inputValue()).toBe('off'); // the default
    await page.getByLabel('Name', { exact: true }).fill('Verified');
    await page.getByLabel('Origins').fill(origin);
    await page.getByLabel('Identity verification').selectOption('required');
    await page.getByRole('button', { name: 'Add site' }).click();
    const identity = page.getByRole('region', { name: 'Verified identity' });
    await identity.waitFor();
    const first = (await identity.locator('#identity-secret code').textContent()) ?? '';
    expect(first).toMatch(/^gis_[A-Za-z0-9_-]{43}$/);
    const { items } = (await api(key, 'sites')).body;
    expect(items[0]).toMatchObject({ identity_verification: 'required', identity_secret_set: true });
    expect(JSON.stringify(items)).not.toContain(first);
    expect((await testDb('identity').site.findUniqueOrThrow({ where: { id: items[0].id } })).identitySecret).toBe(first);

    await identity.getByRole('button', { name: 'Rotate identity secret' }).click();
    await status(page, 'New identity secret for “Verified”: copy it now.');
    const second = (await identity.locator('#identity-secret code').textContent()) ?? '';
    expect(second).toMatch(/^gis_/);
    expect(second).not.toBe(first);
    expect(await testDb('identity').site.findUniqueOrThrow({ where: { id: items[0].id } })).toMatchObject({
      identitySecret: second,
      previousIdentitySecret: first,
    });
    // Opened again, the site shows no secret.
    await goTo(page, 'Visitors');
    await goTo(page, 'Sites');
    await page.getByRole('link', { name: 'Install and traffic of Verified' }).click();
    await page.getByRole('region', { name: 'Verified identity' }).waitFor();
    expect(await page.locator('#identity-secret').textContent()).toBe('');
    expect(await page.getByRole('region', { name: 'Verified identity' }).textContent()).toContain('Verification: required.');
    expect(problems).toEqual([]);
    await page.context().close();
  }, 90_000);

  it('when a visitor identifies and later submits a form with another email, then its page shows both links with method, confidence, time and the page of each, and the filter separates it from an anonymous one', async () => {
    const { page, problems, key } = await signedInConsole('console identification visitor');
    const origin = uniqueOrigin('shop');
    const created = await api(key, 'sites', { method: 'POST', body: { name: 'Shop', origins: [origin], capture_forms: true } });
    expect(created.status).toBe(201);
    const site = created.body;
    const [first, second] = [uniqueEmail('console-first'), uniqueEmail('console-second')];
    const known = await collect(origin, site.key, [pageView(origin, '/pricing', 'Pricing')]);
    await collect(origin, site.key, [{ type: 'identify', id: uniqueId('id'), email: first, traits: {}, path: '/pricing' }], known);
    await new Promise((resolve) => setTimeout(resolve, 20)); // the form's link is strictly newer
    await collect(
      origin,
      site.key,
      [pageView(origin, '/contact', 'Contact'), { type: 'identify', method: 'form', id: uniqueId('form'), email: second, path: '/contact' }],
      known,
    );
    const anonymous = await collect(origin, site.key, [pageView(origin, '/blog', 'Blog')]);

    // The stats line counts them once the visitors service has applied them.
    await goTo(page, 'Sites');
    const statsCell = page
      .getByRole('row')
      .filter({ has: page.getByRole('rowheader', { name: 'Shop', exact: true }) })
      .locator('.site-stats');
    await waitFor(
      async () => {
        if ((await statsCell.textContent()) === '3 page views, 2 visitors, 1 identified, 0 bot page views') return true;
        // The list loads its stats when the page is drawn: leave and come back (a link to the page
        // already shown changes nothing).
        await goTo(page, 'Page rules');
        await goTo(page, 'Sites');
        return false;
      },
      { timeoutMs: 40_000, intervalMs: 1_000, what: 'the site’s stats line' },
    );

    // Identified only: the known visitor; anonymous only: the other.
    await goTo(page, 'Visitors');
    const rows = page.locator('table tbody tr');
    await waitFor(async () => (await rows.count()) === 2 && (await rows.nth(0).textContent())?.includes(second), {
      timeoutMs: 40_000,
      intervalMs: 500,
      what: 'two visitors, the form-identified one first',
    });
    await page.getByLabel('Show').selectOption('identified');
    await waitFor(async () => (await rows.count()) === 1 && (await rows.nth(0).locator('th').textContent()) === known, {
      timeoutMs: 10_000,
      what: 'the identified visitor alone',
    });
    expect((await rows.nth(0).locator('th, td').allTextContents())[9]).toMatch(/^form, .*, confidence 0\.60, claimed$/);
    await page.getByLabel('Show').selectOption('anonymous');
    await waitFor(async () => (await rows.count()) === 1 && (await rows.nth(0).locator('th').textContent()) === anonymous, {
      timeoutMs: 10_000,
      what: 'the anonymous visitor alone',
    });
    expect(page.url()).toContain('#/visitors?filter=anonymous');

    // Open the identified one: the reason and the history, newest first.
    await page.getByLabel('Show').selectOption('identified');
    await page.getByRole('link', { name: `Open visitor ${known}` }).click();
    const detail = page.getByRole('region', { name: `Visitor ${known}` });
    await detail.waitFor();
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('visitor-title');
    expect(await detail.locator('#visitor-email').textContent()).toBe(second);
    expect(await detail.locator('#visitor-reason').textContent()).toMatch(/^form submitted \(claimed\) on \/contact, confidence 0\.60, /);
    expect(await detail.locator('#visitor-consent').textContent()).toBe('implied');
    const history = detail.getByRole('table', { name: 'Identity history, newest first' });
    const cells = async (n: number) => history.locator('tbody tr').nth(n).locator('th, td').allTextContents();
    expect(await history.locator('tbody tr').count()).toBe(2);
    const [newest, older] = [await cells(0), await cells(1)];
    // Neither was verified (the site does not verify identity): both are claims.
    expect([newest[0], newest[1], newest[2], newest[4], newest[5]]).toEqual([second, 'form submitted', '0.60', '/contact', 'claimed']);
    expect([older[0], older[1], older[2], older[4], older[5]]).toEqual([first, 'identify call', '0.70', '/pricing', 'claimed']);
    expect(newest[3]).not.toBe('–');
    const pages = await detail.getByRole('table', { name: 'Pages' }).locator('tbody th').allTextContents();
    expect(pages).toEqual(['/contact', '/pricing']);
    expect(await detail.getByRole('table', { name: 'Sessions, newest first' }).locator('tbody tr').count()).toBe(1);
    await screenshot(page, 'visitor-identity-history');
    expect(problems).toEqual([]);
    await page.context().close();
  }, 150_000);

  it('when a person adds a page rule and deletes it, then the API lists it and then nothing', async () => {
    const { page, problems, key } = await signedInConsole('console page rules');
    await goTo(page, 'Page rules');
    await page.getByText('No page rules yet.').waitFor();
    await page.getByLabel('Page path pattern').fill('/pricing*');
    await page.getByLabel('Event', { exact: true }).fill('viewed pricing');
    await page.getByRole('button', { name: 'Add rule' }).click();
    await page.getByRole('alert').filter({ hasText: 'is not a valid event name' }).waitFor();
    await page.getByLabel('Event', { exact: true }).fill('viewed_pricing');
    await page.getByRole('button', { name: 'Add rule' }).click();
    await status(page, 'Rule added: a page view of /pricing* becomes viewed_pricing.');
    const listed = (await api(key, 'page-rules')).body.items;
    expect(listed).toHaveLength(1);
    expect(listed[0]).toMatchObject({ pattern: '/pricing*', event: 'viewed_pricing' });
    const row = page.getByRole('row').filter({ has: page.getByRole('rowheader', { name: '/pricing*' }) });
    expect((await row.locator('td').allTextContents())[0]).toBe('viewed_pricing');
    await screenshot(page, 'page-rules');

    await row.getByRole('button', { name: 'Delete rule /pricing*' }).click();
    await status(page, 'Rule /pricing* deleted.');
    await page.getByText('No page rules yet.').waitFor();
    expect((await api(key, 'page-rules')).body.items).toEqual([]);
    expect(problems).toEqual([]);
    await page.context().close();
  }, 60_000);

  it('when a person makes an email link, then the ?gl= parameter and the full link are shown and copy exactly, and the token does not carry the email', async () => {
    const { page, problems, accountId } = await signedInConsole('console email links');
    const email = uniqueEmail('console-link');
    await goTo(page, 'Email links');
    await page.getByLabel('Recipient’s email').fill(email);
    await page.getByLabel('Valid for (days)').fill('7');
    await page.getByLabel('Campaign link (optional)').fill('https://www.example.com/pricing?utm_campaign=spring');
    const before = Date.now();
    await page.getByRole('button', { name: 'Create link parameter' }).click();
    const param = page.locator('#link-param');
    await param.waitFor();
    const text = (await param.textContent())!;
    expect(text).toMatch(/^\?gl=[A-Za-z0-9_-]{40,}$/);
    const token = text.slice(4);
    expect(token).not.toContain(email.split('@')[0]);
    expect(Buffer.from(token, 'base64url').toString('latin1')).not.toContain(email);
    const full = new URL((await page.locator('#link-full').textContent())!);
    expect(full.searchParams.get('gl')).toBe(token);
    expect(full.searchParams.get('utm_campaign')).toBe('spring');
    const expires = Date.parse((await page.getByRole('region', { name: 'Link parameter' }).locator('time').getAttribute('datetime'))!);
    expect(expires).toBeGreaterThanOrEqual(before + 7 * 86_400_000 - 60_000);
    expect(expires).toBeLessThanOrEqual(Date.now() + 7 * 86_400_000 + 60_000);

    await page.getByRole('button', { name: 'Copy parameter' }).click();
    await status(page, 'Copied to the clipboard.');
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(text);
    await screenshot(page, 'email-links');

    // Out of range: the browser refuses the form (min 1, max 90), the shown link stays.
    await page.getByLabel('Valid for (days)').fill('400');
    await page.getByRole('button', { name: 'Create link parameter' }).click();
    expect(await page.getByLabel('Valid for (days)').evaluate((el) => (el as HTMLInputElement).validity.rangeOverflow)).toBe(true);
    expect(await param.textContent()).toBe(text);

    await page.getByRole('button', { name: 'Revoke this link' }).click();
    await status(page, 'Link revoked: opening it identifies nobody from now on (within a minute).');
    await page.getByRole('button', { name: 'Revoke all email links' }).click();
    await status(page, 'Every email link made so far is revoked; links made from now on work as usual.');
    expect((await testDb('identity').linkTokenRevocation.findMany({ where: { accountId }, orderBy: { tokenId: 'asc' } })).map((r) => r.tokenId)).toEqual([
      '*',
      expect.stringMatching(/^[A-Za-z0-9_-]{22}$/),
    ]);
    expect(problems).toEqual([]);
    await page.context().close();
  }, 60_000);
});
