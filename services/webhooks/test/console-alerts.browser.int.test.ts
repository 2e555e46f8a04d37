/// <reference lib="dom" />
// The console's Alerts page in a real headless Chromium against the gateway and the webhooks
// service: a person adds a Slack endpoint (a local stand-in for Slack's host) beside a webhook
// endpoint, a segment.entered alert is published on visitors.segments, Slack answers 410 (the
// incoming webhook was removed), and the page shows the Slack endpoint disabled as revoked with
// its failure, and the webhook endpoint's delivery delivered. Screenshots go to artifacts/console/.
import fs from 'node:fs';
import { randomBytes, randomUUID } from 'node:crypto';
import { type Browser } from 'playwright-core';
import type { RunningGateway } from '@glimpse/gateway';
import { TOPICS, segmentEnteredSchema } from '@glimpse/messaging';
import type { RunningWebhooksService } from '@glimpse/webhooks';
import { closeTestDb, createTestAccount, createTestApiKey, startTestGateway, testDb, waitFor } from '../../../test/support/stack';
import { produceRaw } from '../../../test/support/kafka-helpers';
import { startSlackHost, type SlackHost } from '../../../test/support/slack-host';
import { startReceiver, startTestWebhooksService, type Receiver } from '../../../test/support/webhooks';
import { launchChromium } from '../../../test/support/browser';
import { CONSOLE_ARTIFACTS, goTo, openConsole, screenshot, signIn } from '../../../test/support/console';

let webhooks: RunningWebhooksService;
let gateway: RunningGateway;
let receiver: Receiver;
let slack: SlackHost;
let browser: Browser;
let accountId: string;

beforeAll(async () => {
  fs.mkdirSync(CONSOLE_ARTIFACTS, { recursive: true });
  browser = await launchChromium("the console's browser tests");
  [receiver, slack] = await Promise.all([startReceiver(), startSlackHost()]);
  webhooks = await startTestWebhooksService();
  gateway = await startTestGateway({ WEBHOOKS_URL: webhooks.url });
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await gateway?.stop();
  await webhooks?.stop();
  await receiver?.close();
  await slack?.close();
  // Once the services are stopped: a delete under a running dispatcher's claims can deadlock with them.
  if (accountId) await testDb('webhooks').webhookEndpoint.deleteMany({ where: { accountId } });
  await closeTestDb();
});

describe('console: alerts', () => {
  it('when a Slack endpoint is added and Slack answers 410, then the Alerts page shows it revoked with its failure, and the webhook endpoint delivered', async () => {
    ({ accountId } = await createTestAccount('console alerts'));
    const { key } = await createTestApiKey(accountId, ['account:manage']);
    const { page, problems } = await openConsole(browser, gateway.url, { viewport: { width: 1400, height: 900 } });
    await signIn(page, key);

    // A webhook endpoint subscribed to segment.entered, added on the Webhooks page.
    await goTo(page, 'Webhooks');
    await page.getByLabel('Endpoint URL').fill(receiver.url);
    for (const box of await page.locator('input[name=webhook-event]').all()) await box.uncheck();
    await page.getByRole('checkbox', { name: /^segment\.entered/ }).check();
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    await page.getByRole('rowheader', { name: receiver.url }).waitFor();

    // The Slack endpoint, on the Alerts page: shown masked once added.
    await goTo(page, 'Alerts');
    const hook = slack.hook([{ status: 410, body: 'no_service' }]);
    const masked = `${slack.origin}/…${hook.slice(-4)}`;
    await page.getByLabel('Slack incoming-webhook URL').fill(hook);
    await page.getByRole('button', { name: 'Add Slack endpoint' }).click();
    const slackRow = page.getByRole('row').filter({ has: page.getByRole('rowheader', { name: masked }) });
    await slackRow.waitFor();
    expect(await page.content()).not.toContain(hook);
    expect(await slackRow.textContent()).toMatch(/Slack.*segment\.entered, segment\.digest.*enabled.*none yet/s);

    const message = segmentEnteredSchema.parse({
      type: 'segment.entered',
      eventId: randomUUID(),
      accountId,
      segmentId: randomUUID(),
      segmentName: 'Hot accounts',
      segmentKind: 'companies',
      windowStart: new Date(Date.now() - 60_000).toISOString(),
      at: new Date().toISOString(),
      member: {
        kind: 'company',
        key: `acme-${randomBytes(3).toString('hex')}.example`,
        name: 'Acme Corp',
        domain: null,
        email: null,
        score: 64,
        reasons: [{ reason: 'Visited /pricing* (page rule)', points: 64, at: new Date().toISOString() }],
        location: null,
        lastPages: [],
        visitors: 1,
      },
    });
    await produceRaw(TOPICS.visitorsSegments, [{ key: `${accountId}:${message.segmentId}`, value: JSON.stringify(message) }]);
    await waitFor(async () => receiver.requests.find((r) => r.headers['webhook-id'] === message.eventId && r.answered === 'ok'), {
      what: 'the webhook delivery',
    });
    await waitFor(async () => (await testDb('webhooks').webhookEndpoint.findFirst({ where: { accountId, kind: 'slack', enabled: false } })) ?? undefined, {
      what: 'the Slack endpoint revoked',
    });

    // The page again (as a person would come back to it): the reason, the failure, the deliveries.
    await goTo(page, 'Webhooks');
    await goTo(page, 'Alerts');
    await slackRow.filter({ hasText: 'revoked' }).waitFor();
    expect(await slackRow.textContent()).toMatch(
      /disabled.*revoked: Slack removed this incoming webhook \(404 or 410\).*segment\.entered.*pending.*Slack answered 410 \(no_service\)/s,
    );
    const webhookRow = page.getByRole('row').filter({ has: page.getByRole('rowheader', { name: receiver.url }) });
    expect(await webhookRow.textContent()).toMatch(/Webhook.*enabled.*segment\.entered.*delivered.*none/s);
    await screenshot(page, 'alerts');
    expect(problems).toEqual([]);
    await page.context().close();
  });
});
