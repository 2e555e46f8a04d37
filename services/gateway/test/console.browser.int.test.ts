/// <reference lib="dom" />
// The web console in a real headless Chromium (Debian's `chromium`, driven by playwright-core)
// against the whole stack in this process. A person signs in, creates an event token, sends an
// event with it, picks the name as a playbook trigger and sees the next event enroll someone.
// Each page is saved as a full-page screenshot under artifacts/console/. (The DOM types are for
// the functions given to page.evaluate, which run in the browser.)
import { type Page } from 'playwright-core';
import { createTestAccount, createTestApiKey, postEvent, request, startManagementStack, uniqueEmail, waitFor } from '../../../test/support/stack';
import { goTo, heading, openConsole as openTab, screenshot, useConsole } from '../../../test/support/console';

const ui = useConsole("the console's browser tests", () => startManagementStack());

/** A fresh browser tab that records script errors and CSP violations, and accepts confirm() dialogs. */
const openConsole = () => openTab(ui.browser, ui.stack.gateway.url);

const activeLabel = (page: Page) =>
  page.evaluate(() => document.activeElement?.getAttribute('aria-label') ?? document.activeElement?.textContent ?? document.activeElement?.id ?? '');

/** Signs in the way a keyboard user does: Tab (past the skip link) to the key field, type, Enter. */
async function signIn(page: Page, key: string) {
  const focused = () => page.evaluate(() => document.activeElement?.id);
  for (let presses = 0; presses < 3 && (await focused()) !== 'api-key'; presses++) await page.keyboard.press('Tab');
  expect(await focused()).toBe('api-key');
  await page.keyboard.type(key);
  await page.keyboard.press('Enter');
}

const alertText = (page: Page) => page.getByRole('alert').textContent();

describe('web console at /console', () => {
  it('when the console is requested, then its files come with a strict content security policy and no inline script', async () => {
    const redirect = await fetch(`${ui.stack.gateway.url}/console`, { redirect: 'manual' });
    expect(redirect.status).toBe(301);
    expect(redirect.headers.get('location')).toBe('/console/');

    const page = await request(`${ui.stack.gateway.url}/console/`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(page.headers.get('content-security-policy')).toMatch(/(^|; )default-src 'self'(;|$)/);
    expect(page.headers.get('content-security-policy')).not.toMatch(/unsafe-inline|unsafe-eval/);
    expect(page.headers.get('x-content-type-options')).toBe('nosniff');
    expect(page.headers.get('referrer-policy')).toBe('no-referrer');
    expect(page.headers.get('cache-control')).toBe('no-cache');
    expect(page.body).not.toMatch(/<script(?![^>]+\bsrc=)[^>]*>/); // every script is a file
    expect(page.body).not.toMatch(/\son[a-z]+=/i); // and no inline handlers

    const script = await request(`${ui.stack.gateway.url}/console/console.js`);
    expect(script.status).toBe(200);
    expect(script.headers.get('content-type')).toMatch(/^text\/javascript/);
    expect(script.headers.get('content-security-policy')).toBeTruthy();
  });

  it('when a key is not accepted, then the API message is announced and the person stays signed out', async () => {
    const { accountId } = await createTestAccount('console wrong key');
    const { key: lookupKey } = await createTestApiKey(accountId, ['visitors:read']);
    const { page, problems } = await openConsole();
    await screenshot(page, 'sign-in');

    await signIn(page, 'glk_not_a_real_key');
    await page.getByRole('alert').filter({ hasText: /\S/ }).waitFor();
    const unknownKeyMessage = await alertText(page);
    expect(unknownKeyMessage).toMatch(/\w/);
    expect(await page.getByRole('navigation', { name: 'Console pages' }).isHidden()).toBe(true);

    // A real key without account:manage: the 403's message, still on the sign-in form.
    await page.getByLabel('Management API key').fill(lookupKey);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await waitFor(async () => (await alertText(page)) !== unknownKeyMessage && (await alertText(page)), { what: 'the 403 message' });
    await heading(page, 'Sign in');
    expect(problems).toEqual([]);
    await page.context().close();
  });

  it('when a person signs in, creates an event token, sends an event and makes its name a trigger, then the next event enrolls someone', async () => {
    const { accountId, token: firstToken } = await createTestAccount('console flow');
    const { key } = await createTestApiKey(accountId, ['account:manage']);
    const { page, problems } = await openConsole();

    // Sign in with the keyboard: the landing page's heading takes focus for screen readers.
    await signIn(page, key);
    await heading(page, 'Companies');
    expect(await page.evaluate(() => document.activeElement?.tagName)).toBe('H1');
    await goTo(page, 'Event tokens');

    // Create an event token: shown once, in its own box, until dismissed.
    await page.getByRole('button', { name: 'Create event token' }).click();
    const box = page.getByRole('region', { name: /^New event token gle_/ });
    const token = (await box.locator('code').textContent())!;
    expect(token).toMatch(/^gle_/);
    await page.getByRole('rowheader', { name: new RegExp(`^${token.slice(0, 8)}`) }).waitFor();
    await screenshot(page, 'event-tokens');
    await box.getByRole('button', { name: 'Done, hide it' }).press('Enter');
    await box.waitFor({ state: 'detached' });
    expect(await page.content()).not.toContain(token);
    expect(await activeLabel(page)).toBe('Create event token');

    // Revoking (after a confirm) shuts a token out of /events.
    await page.getByRole('button', { name: new RegExp(`^Revoke ${firstToken.slice(0, 8)}`) }).click();
    await page.getByRole('status').filter({ hasText: 'revoked' }).waitFor();
    expect(
      await page
        .getByRole('row')
        .filter({ has: page.getByRole('rowheader', { name: new RegExp(`^${firstToken.slice(0, 8)}`) }) })
        .textContent(),
    ).toMatch(/Revoked/);
    await waitFor(async () => (await postEvent(ui.stack.gateway.url, firstToken, { event: 'signed_up', email: uniqueEmail() })).status === 401, {
      what: 'the revoked token refused',
    });

    // The management key is nowhere but in the script's memory.
    expect(await page.content()).not.toContain(key);
    expect(page.url()).not.toContain(key);
    expect(await page.evaluate(() => [localStorage.length, sessionStorage.length, document.cookie])).toEqual([0, 0, '']);

    // Send an event with the new token, then wait for its name to reach the trigger picker.
    const first = uniqueEmail('console-first');
    expect((await postEvent(ui.stack.gateway.url, token, { event: 'signed_up', email: first, properties: { plan: 'pro' } })).status).toBe(200);
    await goTo(page, 'Playbooks');
    const trigger = page.getByRole('checkbox', { name: 'signed_up', exact: true });
    await waitFor(
      async () => {
        if ((await trigger.count()) > 0) return true;
        await page.getByRole('button', { name: 'Refresh event names' }).click();
        return false;
      },
      { timeoutMs: 45_000, intervalMs: 300, what: 'signed_up in the trigger picker' },
    );
    // The picker offers the catalog and nothing else.
    expect(await page.locator('#trigger-picker input[type=checkbox]').evaluateAll((boxes) => boxes.map((b) => (b as HTMLInputElement).value))).toEqual([
      'signed_up',
    ]);

    // Create the playbook: an invalid exit is refused in the page first, with the rule.
    await page.getByLabel('Name', { exact: true }).fill('Onboarding');
    await trigger.focus();
    await page.keyboard.press('Space');
    expect(await trigger.isChecked()).toBe(true);
    await page.getByLabel('Exits').fill('demo booked');
    await page.getByLabel('Exits').press('Enter');
    expect(await alertText(page)).toMatch(/“demo booked” is not a valid event name/);
    expect(await page.getByLabel('Exits').getAttribute('aria-invalid')).toBe('true');
    await page.getByLabel('Exits').fill('demo_booked, purchase');
    await page.getByLabel('Exits').press('Enter');
    const row = page.getByRole('row').filter({ has: page.getByRole('rowheader', { name: 'Onboarding', exact: true }) });
    await row.waitFor();
    expect(await row.textContent()).toMatch(/signed_up.*demo_booked, purchase/);
    expect(await page.getByRole('status').textContent()).toBe('Playbook “Onboarding” created.');
    await screenshot(page, 'playbooks');

    // The same event about someone else now starts an enrollment.
    const second = uniqueEmail('console-second');
    expect((await postEvent(ui.stack.gateway.url, token, { event: 'signed_up', email: second })).status).toBe(200);
    await goTo(page, 'Enrollments');
    await page.getByLabel('Playbook').selectOption({ label: 'Onboarding' });
    await page.getByLabel('Status').selectOption({ label: 'Active' });
    const enrolled = page.getByRole('row').filter({ has: page.getByRole('rowheader', { name: second }) });
    await waitFor(
      async () => {
        await page.getByRole('button', { name: 'Show enrollments' }).click();
        await page.getByRole('heading', { level: 2, name: 'Enrollments in “Onboarding”' }).waitFor();
        await page.getByRole('table').or(page.getByText('No active enrollments')).first().waitFor();
        return (await enrolled.count()) > 0;
      },
      { timeoutMs: 45_000, intervalMs: 300, what: `${second} enrolled in Onboarding` },
    );
    expect(await enrolled.textContent()).toMatch(/active.*signed_up/);
    expect(await page.getByRole('rowheader', { name: first }).count()).toBe(0); // sent before the playbook existed
    expect(page.url()).toContain('#/enrollments?playbook=');
    await screenshot(page, 'enrollments');

    // Recent events: both, newest first.
    await goTo(page, 'Recent events');
    await page.getByRole('rowheader').nth(1).waitFor();
    const emails = await page.locator('tbody tr td:nth-child(3)').allTextContents();
    expect(emails).toEqual([second, first]);
    await screenshot(page, 'events');

    // API keys: a new key with the scopes chosen, shown once like the token.
    await goTo(page, 'API keys');
    await page.getByRole('checkbox', { name: /^visitors:read/ }).check();
    await page.getByRole('button', { name: 'Create API key' }).click();
    const keyBox = page.getByRole('region', { name: /^New API key glk_/ });
    const newKey = (await keyBox.locator('code').textContent())!;
    expect(newKey).toMatch(/^glk_/);
    await page.getByRole('rowheader', { name: new RegExp(`^${newKey.slice(0, 8)}`) }).waitFor();
    await screenshot(page, 'api-keys');
    // Leaving the page drops a secret that was not dismissed.
    await goTo(page, 'Usage');
    expect(await page.content()).not.toContain(newKey);
    await page.getByRole('rowheader', { name: 'Total' }).waitFor();
    await screenshot(page, 'usage');

    // Signing out, or reloading, forgets the key.
    await page.getByRole('button', { name: 'Sign out' }).click();
    await heading(page, 'Sign in');
    await signIn(page, key);
    await heading(page, 'Usage');
    await page.reload();
    await heading(page, 'Sign in');

    expect(problems).toEqual([]);
    await page.context().close();
  }, 150_000);
});
