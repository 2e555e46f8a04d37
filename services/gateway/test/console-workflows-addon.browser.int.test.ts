/// <reference lib="dom" />
// The console for an account without the workflows add-on, in a real headless Chromium against a
// real gateway (and visitors service, for page rules): the pages of the add-on's endpoints show a
// notice saying why they are refused; the other pages are unaffected. Screenshots under artifacts/console/.
import fs from 'node:fs';
import path from 'node:path';
import { type Browser, type Page } from 'playwright-core';
import { setWorkflowsAddon } from '@glimpse/auth';
import { closeTestDb, createTestAccount, createTestApiKey, startTestGateway, testDb } from '../../../test/support/stack';
import { startTestVisitorsService } from '../../../test/support/visitors';
import { launchChromium } from '../../../test/support/browser';
import type { RunningGateway } from '@glimpse/gateway';

const ARTIFACTS = path.resolve(__dirname, '../../../artifacts/console');

let browser: Browser;
let visitors: Awaited<ReturnType<typeof startTestVisitorsService>>;
let gateway: RunningGateway;

beforeAll(async () => {
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  [browser, visitors] = await Promise.all([launchChromium("the console's add-on notice tests"), startTestVisitorsService()]);
  gateway = await startTestGateway({ VISITORS_URL: visitors.url });
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await gateway?.stop();
  await visitors?.stop();
  await closeTestDb();
});

async function signedIn(workflows: boolean): Promise<{ page: Page; problems: string[] }> {
  const { accountId } = await createTestAccount('console add-on');
  if (!workflows) await setWorkflowsAddon(testDb('identity'), accountId, false);
  const { key } = await createTestApiKey(accountId, ['account:manage']);
  const context = await browser.newContext({ viewport: { width: 1100, height: 720 }, colorScheme: 'light', reducedMotion: 'reduce' });
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('pageerror', (err) => problems.push(err.message));
  await page.goto(`${gateway.url}/console`);
  await page.getByLabel('Management API key').fill(key);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { level: 1, name: 'Companies' }).waitFor(); // the landing page
  return { page, problems };
}

const goTo = async (page: Page, link: string) => {
  await page.getByRole('navigation', { name: 'Console pages' }).getByRole('link', { name: link, exact: true }).click();
  await page.getByRole('heading', { level: 1, name: link }).waitFor();
};
const notice = (page: Page) => page.getByRole('note').filter({ hasText: 'Workflows add-on required' });

describe('the console without the workflows add-on', () => {
  it('says why on the event tokens and playbooks pages and for a page rule with an event, and not elsewhere', async () => {
    const { page, problems } = await signedIn(false);
    await goTo(page, 'Event tokens');
    await page.getByRole('button', { name: 'Create event token' }).click();
    await notice(page).waitFor();
    expect(await notice(page).textContent()).toContain('Ask your Glimpse operator to enable it');
    await page.screenshot({ path: path.join(ARTIFACTS, 'addon-event-tokens.png'), fullPage: true });

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
    await page.screenshot({ path: path.join(ARTIFACTS, 'addon-page-rules.png'), fullPage: true });

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
