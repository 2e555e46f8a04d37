/// <reference lib="dom" />
// The console for an account without the workflows add-on, in a real headless Chromium against a
// real gateway (and visitors service, for page rules): the pages of the add-on's endpoints show a
// notice saying why they are refused; the other pages are unaffected. Screenshots under artifacts/console/.
import { type Page } from 'playwright-core';
import { setWorkflowsAddon } from '@glimpse/auth';
import { createTestAccount, createTestApiKey, testDb } from '../../../test/support/stack';
import { goTo, openConsole, screenshot, signIn, startConsoleGateway, useConsole } from '../../../test/support/console';

const ui = useConsole("the console's add-on notice tests", () => startConsoleGateway());

/** A signed-in tab (script errors recorded) of a new account with or without the add-on. */
async function signedIn(workflows: boolean) {
  const { accountId } = await createTestAccount('console add-on');
  if (!workflows) await setWorkflowsAddon(testDb('identity'), accountId, false);
  const { key } = await createTestApiKey(accountId, ['account:manage']);
  const tab = await openConsole(ui.browser, ui.stack.gateway.url, { acceptDialogs: false, consoleErrors: false });
  await signIn(tab.page, key);
  return tab;
}

const notice = (page: Page) => page.getByRole('note').filter({ hasText: 'Workflows add-on required' });

describe('the console without the workflows add-on', () => {
  it('says why on the event tokens and playbooks pages and for a page rule with an event, and not elsewhere', async () => {
    const { page, problems } = await signedIn(false);
    await goTo(page, 'Event tokens');
    await page.getByRole('button', { name: 'Create event token' }).click();
    await notice(page).waitFor();
    expect(await notice(page).textContent()).toContain('Ask your Glimpse operator to enable it');
    await screenshot(page, 'addon-event-tokens');

    await goTo(page, 'Playbooks');
    await notice(page).waitFor();
    expect(await notice(page).count()).toBe(1);
    // Page rules that only score need no add-on: the page lists them; a rule with an event says why it is refused.
    await goTo(page, 'Page rules');
    await page.getByRole('heading', { level: 2, name: 'Your page rules' }).waitFor();
    await page.getByLabel('Page path pattern').fill('/pricing*');
    await page.getByLabel('Event', { exact: true }).fill('viewed_pricing');
    await page.getByRole('button', { name: 'Add rule' }).click();
    await notice(page).waitFor();
    expect(await notice(page).count()).toBe(1);
    await screenshot(page, 'addon-page-rules');

    await goTo(page, 'API keys');
    await page.getByRole('table').first().waitFor();
    expect(await notice(page).count()).toBe(0);
    expect(problems).toEqual([]);
  });

  it('with it, no notice', async () => {
    const { page } = await signedIn(true);
    await goTo(page, 'Page rules');
    await page.getByRole('heading', { level: 2, name: 'Your page rules' }).waitFor();
    await page.waitForLoadState('networkidle');
    expect(await notice(page).count()).toBe(0);
  });
});
