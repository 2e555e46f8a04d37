/// <reference lib="dom" />
// The console's Segments page in a real headless Chromium against a real gateway and visitors
// service, on profiles seeded with their intent scores: a marketer makes a segment from the form's
// fields (score at least, a page read within days, identified), sees it listed with how many are in
// it now and its filter in words, opens it, and reads its members best score first with their
// reasons; a bad pattern is refused in the form; the segment is deleted.
import { randomUUID } from 'node:crypto';
import { type Page } from 'playwright-core';
import { openConsole, screenshot, signIn, startConsoleGateway, useConsole, newManager } from '../../../test/support/console';
import { seedVisitor } from '../../visitors/test/segment-seed';

const ui = useConsole("the console's segments tests", () => startConsoleGateway({ enrichment: true }), { timeoutMs: 90_000 });

const heading = (page: Page, level: number, name: string | RegExp) => page.getByRole('heading', { level, name }).waitFor();
const status = (page: Page, text: string | RegExp) => page.getByRole('status').filter({ hasText: text }).waitFor();

describe('console: segments', () => {
  it('when a segment is made in the form, then it is listed with its count and filter, opens on its members best score first with their reasons, and can be deleted', async () => {
    const { accountId, key } = await newManager('console segments');
    const site = randomUUID();
    const now = new Date();
    const pricing = (p: string) => [{ path: p, at: now }];
    await seedVisitor(accountId, site, {
      score: 85,
      at: now,
      pages: pricing('/pricing'),
      email: 'ada@acme.example',
      company: { name: 'Acme Ltd', domain: 'acme.example' },
    });
    await seedVisitor(accountId, site, { score: 55, at: now, pages: pricing('/pricing/teams'), email: 'bob@globex.example' });
    await seedVisitor(accountId, site, { score: 70, at: now, pages: pricing('/pricing'), email: null });
    await seedVisitor(accountId, site, { score: 95, at: now, pages: pricing('/careers'), email: 'cy@initech.example' });

    const { page, problems } = await openConsole(ui.browser, ui.stack.gateway.url, { viewport: { width: 1280, height: 900 }, acceptDialogs: false });
    await signIn(page, key);
    await page.getByRole('navigation', { name: 'Console pages' }).getByRole('link', { name: 'Segments' }).click();
    await heading(page, 1, 'Segments');
    await page.getByText('No segments yet.').waitFor();

    // A pattern without its leading slash is refused before anything is sent.
    await page.getByLabel('Name').fill('Pricing, identified');
    await page.getByLabel('Read a page').fill('pricing*');
    await page.getByRole('button', { name: 'Create segment' }).click();
    await page.getByRole('alert').filter({ hasText: 'A page pattern is a path starting with /' }).waitFor();
    expect(await page.getByLabel('Read a page').getAttribute('aria-invalid')).toBe('true');

    await page.getByLabel('Read a page').fill('/pricing*');
    await page.getByLabel('Intent score at least').fill('40');
    await page.getByLabel('Identified', { exact: true }).selectOption('true');
    await page.getByRole('button', { name: 'Create segment' }).click();
    await status(page, 'Segment Pricing, identified created: 2 in it now.');
    const row = page.getByRole('row').filter({ hasText: 'Pricing, identified' });
    expect(await row.locator('td, th').allTextContents()).toEqual([
      'Pricing, identified',
      'Visitors',
      '2',
      'score ≥ 40 · /pricing* within 7 days · identified',
      '24 h',
      'Delete segment Pricing, identified',
    ]);

    // Its members: the best score first, each with its reasons.
    await row.getByRole('link', { name: 'Pricing, identified' }).click();
    await heading(page, 2, 'Pricing, identified: 2 visitors');
    const members = page.getByRole('table', { name: /Members of Pricing, identified/ }).locator('tbody tr');
    await members.first().waitFor();
    expect(await members.count()).toBe(2);
    expect(await members.nth(0).locator('td, th').nth(0).textContent()).toBe('85');
    expect(await members.nth(0).textContent()).toContain('ada@acme.example');
    expect(await members.nth(0).textContent()).toContain('+85 85 page views');
    expect(await members.nth(1).textContent()).toContain('bob@globex.example');
    await screenshot(page, 'segments');

    page.once('dialog', (d) => void d.accept());
    await row.getByRole('button', { name: 'Delete segment Pricing, identified' }).click();
    await status(page, 'Segment Pricing, identified deleted.');
    await page.getByText('No segments yet.').waitFor();
    expect(problems).toEqual([]);
    await page.context().close();
  });
});
