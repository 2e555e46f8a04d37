// What the console's browser tests share: Chromium and the services started before a file's tests
// (at once) and stopped after them, a fresh tab that records the page's errors, signing in with a
// manager's key, and the page helpers every file reads the console with. Screenshots go to
// artifacts/console/.
import fs from 'node:fs';
import path from 'node:path';
import type { Browser, BrowserContextOptions, Page } from 'playwright-core';
import type { RunningEnrichmentService } from '@glimpse/enrichment';
import type { RunningGateway } from '@glimpse/gateway';
import type { RunningVisitorsService } from '@glimpse/visitors';
import { launchChromium } from './browser';
import { closeTestDb, createTestAccount, createTestApiKey, request, startTestEnrichmentService, startTestGateway } from './stack';
import { startTestVisitorsService } from './visitors';

export const CONSOLE_ARTIFACTS = path.resolve(__dirname, '../../artifacts/console');
/** A desktop Chrome's user agent: Node's own is a bot's, whose page views are not counted. */
export const BROWSER_UA = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';

export interface ConsoleHooks {
  /** beforeAll's budget (default 60 s). */
  timeoutMs?: number;
  /** Runs before anything starts (seeding what the services load at start). */
  before?: () => Promise<void>;
  /** Runs once the services have stopped, before the test databases' connections close (cleaning up). */
  after?: () => Promise<void>;
}

/**
 * Chromium and the services `start` brings up, started together before the file's tests and
 * stopped after them (with the test databases' connections). The fields are set in beforeAll.
 */
export function useConsole<S extends { stop(): Promise<void> }>(
  what: string,
  start: () => Promise<S>,
  hooks: ConsoleHooks = {},
): { browser: Browser; stack: S } {
  const harness = {} as { browser: Browser; stack: S };
  beforeAll(async () => {
    fs.mkdirSync(CONSOLE_ARTIFACTS, { recursive: true });
    await hooks.before?.();
    [harness.browser, harness.stack] = await Promise.all([launchChromium(what), start()]);
  }, hooks.timeoutMs ?? 60_000);
  afterAll(async () => {
    await harness.browser?.close();
    await harness.stack?.stop();
    await hooks.after?.();
    await closeTestDb();
  });
  return harness;
}

export interface ConsoleGateway {
  gateway: RunningGateway;
  visitors: RunningVisitorsService;
  /** Only when asked for. */
  enrichment?: RunningEnrichmentService;
  stop(): Promise<void>;
}

/** A gateway with a visitors service (and an enrichment service when asked), for the pages that read them. */
export async function startConsoleGateway(options: { enrichment?: boolean; visitorsEnv?: Record<string, string> } = {}): Promise<ConsoleGateway> {
  const [visitors, enrichment] = await Promise.all([
    startTestVisitorsService(options.visitorsEnv),
    options.enrichment ? startTestEnrichmentService() : undefined,
  ]);
  const gateway = await startTestGateway({ VISITORS_URL: visitors.url, ...(enrichment ? { ENRICHMENT_URL: enrichment.url } : {}) });
  return {
    gateway,
    visitors,
    ...(enrichment ? { enrichment } : {}),
    async stop() {
      await gateway.stop();
      await Promise.all([visitors.stop(), enrichment?.stop()]);
    },
  };
}

export interface ConsoleTab {
  page: Page;
  /** Script errors, and console errors other than failed requests (the page reports those itself). */
  problems: string[];
  /** Every line the page wrote to the browser's console, of any level. */
  consoleLines: string[];
}

export interface TabOptions {
  viewport?: BrowserContextOptions['viewport'];
  /** Allow the clipboard (the copy buttons). */
  clipboard?: boolean;
  /** Accept every confirm() (default); false when the test answers the dialogs itself. */
  acceptDialogs?: boolean;
  /** Count console errors as problems (default); false: script errors only. */
  consoleErrors?: boolean;
}

/** A fresh tab on the console's sign-in page. */
export async function openConsole(browser: Browser, gatewayUrl: string, options: TabOptions = {}): Promise<ConsoleTab> {
  const viewport = options.viewport ?? { width: 1100, height: 720 };
  const context = await browser.newContext({ viewport, colorScheme: 'light', reducedMotion: 'reduce', acceptDownloads: true });
  if (options.clipboard) await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: gatewayUrl });
  const page = await context.newPage();
  const problems: string[] = [];
  const consoleLines: string[] = [];
  page.on('pageerror', (err) => problems.push(err.message));
  page.on('console', (msg) => {
    consoleLines.push(msg.text());
    if (options.consoleErrors !== false && msg.type() === 'error' && !msg.text().startsWith('Failed to load resource')) problems.push(msg.text());
  });
  if (options.acceptDialogs !== false) page.on('dialog', (dialog) => void dialog.accept());
  await page.goto(`${gatewayUrl}/console`);
  await heading(page, 'Sign in');
  return { page, problems, consoleLines };
}

/** Signs in with the key field and the button, and waits for the landing page. */
export async function signIn(page: Page, key: string): Promise<void> {
  await page.getByLabel('Management API key').fill(key);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await heading(page, 'Companies'); // the landing page
}

/** A new account's manager: its id and an account:manage key. */
export async function newManager(name: string): Promise<{ accountId: string; key: string }> {
  const { accountId } = await createTestAccount(name);
  const { key } = await createTestApiKey(accountId, ['account:manage']);
  return { accountId, key };
}

/** A signed-in tab for a new account's manager. */
export async function signedInConsole(
  browser: Browser,
  gatewayUrl: string,
  name: string,
  options: TabOptions = {},
): Promise<ConsoleTab & { key: string; accountId: string }> {
  const { accountId, key } = await newManager(name);
  const tab = await openConsole(browser, gatewayUrl, options);
  await signIn(tab.page, key);
  return { ...tab, key, accountId };
}

export const heading = (page: Page, name: string) => page.getByRole('heading', { level: 1, name }).waitFor();
export const screenshot = (page: Page, name: string) => page.screenshot({ path: path.join(CONSOLE_ARTIFACTS, `${name}.png`), fullPage: true });

/** Follows a link of the console's navigation and waits for its page. */
export async function goTo(page: Page, link: string): Promise<void> {
  await page.getByRole('navigation', { name: 'Console pages' }).getByRole('link', { name: link, exact: true }).click();
  await heading(page, link);
}

/** A site origin and an event id no other test uses. */
export const uniqueOrigin = (name: string) => `https://${name}-${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}.example`;
export const uniqueId = (name: string) => `${name}-${Date.now().toString(36)}${Math.random().toString(36).slice(2, 10)}`;

/**
 * What the site tag sends: a text/plain POST (no preflight) from the site's origin, with a
 * browser's user agent, from `address` behind the loopback proxy when given; answers the visitor id.
 */
export async function collect(
  gatewayUrl: string,
  origin: string,
  siteKey: string,
  events: object[],
  from: { vid?: string; address?: string } = {},
): Promise<string> {
  const res = await request(`${gatewayUrl}/collect`, {
    method: 'POST',
    headers: {
      origin,
      'content-type': 'text/plain;charset=UTF-8',
      'user-agent': BROWSER_UA,
      ...(from.address ? { 'x-forwarded-for': from.address } : {}),
    },
    body: JSON.stringify({ site: siteKey, ...(from.vid ? { vid: from.vid } : {}), events }),
  });
  expect(res.status).toBe(200);
  expect(res.body.accepted).toBe(events.length);
  return res.body.vid as string;
}

/** A page view as the tag reports it (no referrer). */
export const pageView = (origin: string, pathname: string, title?: string) => ({
  type: 'pageview',
  id: uniqueId('pv'),
  url: `${origin}${pathname}`,
  path: pathname,
  ...(title !== undefined ? { title } : {}),
  referrer: '',
});

/** A management API call (/account/…) with `key`, a JSON body when given. */
export const accountApi = (gatewayUrl: string, key: string, pathAndQuery: string, init: { method?: string; body?: unknown } = {}) =>
  request(`${gatewayUrl}/account/${pathAndQuery}`, {
    method: init.method ?? 'GET',
    headers: { authorization: `Bearer ${key}`, ...(init.body !== undefined ? { 'content-type': 'application/json' } : {}) },
    ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : {}),
  });
