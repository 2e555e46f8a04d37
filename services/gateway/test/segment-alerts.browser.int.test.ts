/// <reference lib="dom" />
// Intent, segments and Slack alerts end to end in a real headless Chromium: a visitor from a
// company's network reads a site's pages (the site's install snippet, the real gateway, Kafka, the
// visitors service scoring as the page views arrive), the company's score passes a segment's bound,
// the visitors service's evaluator announces its entry on visitors.segments, and the webhooks
// service posts the Block Kit message through Slack's own client to a local HTTP server standing in
// for Slack's webhook host (hooks.slack.com is not reachable here). That host first answers 429 with
// Retry-After, then accepts; a later 410 (a removed Slack webhook) disables the endpoint.
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { type Browser } from 'playwright-core';
import type { RunningGateway } from '@glimpse/gateway';
import { deleteIpDataset, importIpDataset, importLocationFile } from '@glimpse/visitors';
import { slackMessageSchema, type RunningWebhooksService } from '@glimpse/webhooks';
import { serviceDatabaseUrl } from '../../../test/config';
import { launchChromium } from '../../../test/support/browser';
import { closeTestDb, createTestAccount, createTestApiKey, request, startTestEnrichmentService, startTestGateway, waitFor } from '../../../test/support/stack';
import { startTestVisitorsService } from '../../../test/support/visitors';
import { startTestWebhooksService } from '../../../test/support/webhooks';
import { startSlackHost, type SlackHost } from '../../../test/support/slack-host';
import { startTestSite, type PageOptions, type TestSite } from './tag-site';

let browser: Browser;
let visitors: Awaited<ReturnType<typeof startTestVisitorsService>>;
let enrichment: Awaited<ReturnType<typeof startTestEnrichmentService>>;
let webhooks: RunningWebhooksService;
let gateway: RunningGateway;
let slack: SlackHost;
let site: TestSite;
let page: PageOptions;
let manageKey: string;
/** Chromium's own user agent without "Headless", which the gateway's bot filter rightly refuses. */
let userAgent: string;

const ipTag = randomBytes(4).toString('hex');
const IP_DATASETS = { ranges: `alerts-${ipTag}`, city: `alerts-${ipTag}-city` };
const ACME = { name: `Acme ${ipTag}`, domain: `acme-${ipTag}.example` };
/** Inside Acme's business range, and inside a block MaxMind's City test database locates (London). */
const ACME_ADDRESS = '81.2.69.142';

beforeAll(async () => {
  // Before the visitors service starts: a replica loads the IP data before its first chunk.
  const databaseUrl = serviceDatabaseUrl('visitors');
  await importIpDataset([`81.2.69.128,81.2.69.191,64510,${ACME.name},${ACME.domain},business`], {
    databaseUrl,
    dataset: IP_DATASETS.ranges,
    format: 'csv',
    columns: ['start', 'end', 'asn', 'name', 'domain', 'type'],
    precedence: 2_147_000_001,
  });
  await importLocationFile(path.join(__dirname, '..', '..', 'visitors', 'test', 'fixtures', 'ip-data', 'GeoIP2-City-Test.mmdb'), {
    databaseUrl,
    dataset: IP_DATASETS.city,
  });
  [browser, visitors, enrichment, webhooks, slack] = await Promise.all([
    launchChromium('the segment alerts test'),
    startTestVisitorsService({ SEGMENTS_EVALUATE_INTERVAL_MS: '1000', COMPANIES_VIEW_CACHE_SECONDS: '0' }),
    startTestEnrichmentService(),
    startTestWebhooksService({ WEBHOOKS_CONSOLE_URL: 'https://glimpse.example/console/' }),
    startSlackHost(),
  ]);
  gateway = await startTestGateway({ VISITORS_URL: visitors.url, ENRICHMENT_URL: enrichment.url, WEBHOOKS_URL: webhooks.url });
  site = await startTestSite(() => page);
  const probe = await browser.newContext();
  userAgent = (await (await probe.newPage()).evaluate(() => navigator.userAgent)).replace('HeadlessChrome', 'Chrome');
  await probe.close();
  const { accountId } = await createTestAccount('segment alerts');
  ({ key: manageKey } = await createTestApiKey(accountId, ['account:manage']));
}, 90_000);

afterAll(async () => {
  await browser?.close();
  await site?.stop();
  await gateway?.stop();
  await Promise.all([visitors?.stop(), enrichment?.stop(), webhooks?.stop(), slack?.close()]);
  for (const name of Object.values(IP_DATASETS)) await deleteIpDataset(serviceDatabaseUrl('visitors'), name).catch(() => undefined);
  await closeTestDb();
});

const manage = (path: string, init: { method?: string; body?: unknown } = {}) =>
  request(`${gateway.url}${path}`, {
    method: init.method ?? 'GET',
    headers: { authorization: `Bearer ${manageKey}`, ...(init.body !== undefined ? { 'content-type': 'application/json' } : {}) },
    ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : {}),
  });

/** Reads the site's pages as a person at Acme would: a desktop browser, its posts from Acme's address. */
async function browse(paths: string[]): Promise<void> {
  const context = await browser.newContext({ userAgent });
  await context.route(`${gateway.url}/collect`, (route) => route.continue({ headers: { ...route.request().headers(), 'x-forwarded-for': ACME_ADDRESS } }));
  const tab = await context.newPage();
  const problems: string[] = [];
  tab.on('pageerror', (err) => problems.push(err.message));
  let accepted = 0;
  tab.on('response', (res) => {
    if (res.url() === `${gateway.url}/collect` && res.status() === 200)
      res.json().then(
        (body: { accepted: number }) => (accepted += body.accepted),
        () => undefined,
      );
  });
  for (const [i, p] of paths.entries()) {
    await tab.goto(`${site.origin}${p}`);
    await waitFor(async () => accepted >= i + 1, { what: `the page view of ${p} accepted` });
  }
  expect(problems).toEqual([]);
  await context.close();
}

/** Time zones far enough apart that one of them is always before 22:00. */
const ZONES = ['UTC', 'Asia/Tokyo', 'America/Los_Angeles'];
const localHour = (timeZone: string) => Number(new Intl.DateTimeFormat('en-US', { timeZone, hour: 'numeric', hourCycle: 'h23' }).format(new Date()));

describe('intent scores, a segment and its Slack alert, from a browser', () => {
  it("when a company's visitor reads the pricing pages, then the company enters the segment and Slack gets one Block Kit message after a 429's Retry-After; a 410 later disables the endpoint", async () => {
    const created = await manage('/account/sites', { method: 'POST', body: { name: 'alerts site', origins: [site.origin] } });
    expect(created.status).toBe(201);
    page = { collector: gateway.url, siteKey: created.body.key, snippet: created.body.snippet.html };
    // A page rule that only scores (no event: no workflows add-on needed).
    expect((await manage('/account/page-rules', { method: 'POST', body: { pattern: '/pricing*', weight: 40 } })).status).toBe(201);
    const hook = slack.hook([
      { status: 429, body: 'rate_limited', headers: { 'Retry-After': '2' } },
      { status: 200, body: 'ok' },
      { status: 410, body: 'no_service' },
    ]);
    const endpoint = await manage('/account/webhooks', { method: 'POST', body: { kind: 'slack', url: hook } });
    expect(endpoint.status).toBe(201);
    // The daily digest (to the same endpoint) waits for a local hour still to come today.
    const zone = ZONES.find((z) => localHour(z) <= 21)!;
    expect((await manage('/account/alert-settings', { method: 'PUT', body: { time_zone: zone, digest_hour: 23 } })).status).toBe(200);
    const segment = await manage('/account/segments', { method: 'POST', body: { name: 'Reading pricing', kind: 'companies', filter: { min_score: 40 } } });
    expect(segment.status).toBe(201);
    expect(segment.body.count).toBe(0);
    // Its first evaluation takes whoever is in already, without alerts: only later entries are announced.
    await waitFor(async () => (await manage(`/account/segments/${segment.body.id}`)).body.evaluated_at !== null, { what: 'the first evaluation' });

    // A home page alone: a page view and a session, below the bound.
    await browse(['/']);
    const below = await waitFor(
      async () => {
        const company = await manage(`/account/companies/${ACME.domain}`);
        return company.status === 200 && company.body;
      },
      { what: "Acme's company record", timeoutMs: 30_000 },
    );
    expect(below.intent.score).toBeLessThan(40);

    // The pricing pages: the rule's 40 points, once in the session.
    await browse(['/pricing', '/pricing/enterprise']);
    const above = await waitFor(
      async () => {
        const company = await manage(`/account/companies/${ACME.domain}`);
        return company.status === 200 && company.body.intent.score >= 40 && company.body;
      },
      { what: "Acme's score past 40", timeoutMs: 30_000 },
    );
    const reasons = above.intent.reasons as { reason: string; points: number }[];
    expect(reasons.reduce((sum, r) => sum + r.points, 0)).toBe(above.intent.score);
    expect(reasons[0]!.reason).toContain('/pricing*');

    // Slack: a 429, then the same message no sooner than its Retry-After.
    const posts = await waitFor(
      async () => slack.requests.filter((r) => hook.endsWith(r.path)).length >= 2 && slack.requests.filter((r) => hook.endsWith(r.path)),
      {
        what: 'the retried Slack message',
        timeoutMs: 45_000,
      },
    );
    const [limited, delivered] = posts;
    expect([limited!.status, delivered!.status]).toEqual([429, 200]);
    expect(delivered!.body).toBe(limited!.body);
    expect(delivered!.receivedAt - limited!.answeredAt).toBeGreaterThanOrEqual(2000);
    const message = slackMessageSchema.parse(JSON.parse(delivered!.body));
    const text = JSON.stringify(message);
    expect(text).toContain(ACME.name);
    expect(text).toContain('/pricing');
    expect(text).toContain('Reading pricing');
    const members = await manage(`/account/segments/${segment.body.id}/members`);
    expect(members.body.items.map((m: { key: string }) => m.key)).toEqual([ACME.domain]);

    // Reading on does not announce Acme again within the window.
    await browse(['/pricing/faq']);
    await new Promise((resolve) => setTimeout(resolve, 3000));
    expect(slack.requests.filter((r) => hook.endsWith(r.path))).toHaveLength(2);

    // A digest to the same endpoint meets Slack's 410: the endpoint is disabled as revoked.
    expect((await manage('/account/alert-settings', { method: 'PUT', body: { time_zone: zone, digest_hour: localHour(zone) } })).status).toBe(200);
    const disabled = await waitFor(
      async () => {
        const answer = await manage(`/account/webhooks/${endpoint.body.id}`);
        return answer.body.enabled === false && answer.body;
      },
      { what: 'the Slack endpoint disabled', timeoutMs: 45_000 },
    );
    expect(disabled.disabledReason).toBe('revoked');
    expect(slack.requests.filter((r) => hook.endsWith(r.path)).map((r) => r.status)).toEqual([429, 200, 410]);
  }, 180_000);
});
