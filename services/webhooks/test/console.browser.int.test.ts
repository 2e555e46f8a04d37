/// <reference lib="dom" />
// The console's webhooks page in a real headless Chromium against the gateway and the webhooks
// service: a person subscribes a local receiver (the secret is shown once), sees the deliveries
// fail until the endpoint is disabled, re-enables it once the receiver recovers, and sees the
// delivery succeed. Screenshots go to artifacts/console/.
import fs from 'node:fs';
import { randomUUID } from 'node:crypto';
import { type Browser } from 'playwright-core';
import { Webhook } from 'standardwebhooks';
import type { RunningGateway } from '@glimpse/gateway';
import { TOPICS, personKey } from '@glimpse/messaging';
import type { RunningWebhooksService } from '@glimpse/webhooks';
import { closeTestDb, createTestAccount, createTestApiKey, startTestGateway, testDb, uniqueEmail, waitFor } from '../../../test/support/stack';
import { produceRaw } from '../../../test/support/kafka-helpers';
import { startReceiver, startTestWebhooksService, type Receiver } from '../../../test/support/webhooks';
import { launchChromium } from '../../../test/support/browser';
import { CONSOLE_ARTIFACTS, goTo, openConsole, screenshot, signIn } from '../../../test/support/console';

let webhooks: RunningWebhooksService;
let gateway: RunningGateway;
let receiver: Receiver;
let browser: Browser;
let accountId: string;

beforeAll(async () => {
  fs.mkdirSync(CONSOLE_ARTIFACTS, { recursive: true });
  browser = await launchChromium("the console's browser tests");
  receiver = await startReceiver();
  webhooks = await startTestWebhooksService({ WEBHOOKS_DISABLE_AFTER_MS: '1000', WEBHOOKS_RETRY_WINDOW_MS: '600000' });
  gateway = await startTestGateway({ WEBHOOKS_URL: webhooks.url });
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await gateway?.stop();
  await webhooks?.stop();
  await receiver?.close();
  // Once the services are stopped: a delete under a running dispatcher's claims can deadlock with them.
  if (accountId) await testDb('webhooks').webhookEndpoint.deleteMany({ where: { accountId } });
  await closeTestDb();
});

describe('console: webhooks', () => {
  it('when a person subscribes an endpoint that fails until it is disabled, then the page shows the attempts and re-enabling it delivers', async () => {
    ({ accountId } = await createTestAccount('console webhooks'));
    const { key } = await createTestApiKey(accountId, ['account:manage']);
    const { page, problems } = await openConsole(browser, gateway.url, { viewport: { width: 1200, height: 800 } });
    // The console opens on Companies.
    await signIn(page, key);

    await goTo(page, 'Webhooks');

    // Subscribe: the signing secret is shown once.
    await page.getByLabel('Endpoint URL').fill(receiver.url);
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    const box = page.getByRole('region', { name: /^Signing secret of / });
    const secret = (await box.locator('code').textContent())!;
    expect(secret).toMatch(/^whsec_/);
    await page.getByRole('rowheader', { name: receiver.url }).waitFor();
    await box.getByRole('button', { name: 'Done, hide it' }).click();
    await box.waitFor({ state: 'detached' });
    expect(await page.content()).not.toContain(secret);

    // The receiver fails every attempt: the endpoint is disabled (here after 1 s of failures).
    receiver.script([], 'fail');
    const email = uniqueEmail('console-hook');
    const effectId = randomUUID();
    await produceRaw(TOPICS.playbookEffects, [
      {
        key: personKey(accountId, email),
        value: JSON.stringify({ effectId, eventId: randomUUID(), accountId, playbookId: randomUUID(), email, action: 'started', at: new Date().toISOString() }),
      },
    ]);
    await waitFor(async () => !(await testDb('webhooks').webhookEndpoint.findFirstOrThrow({ where: { accountId } })).enabled, {
      what: 'the endpoint disabled',
    });

    await page.getByRole('link', { name: `Deliveries to ${receiver.url}` }).click();
    const row = page.getByRole('row').filter({ has: page.getByRole('rowheader', { name: receiver.url }) });
    await row.filter({ hasText: 'after failing continuously' }).waitFor();
    const deliveries = page.getByRole('table', { name: `Deliveries to ${receiver.url}` });
    await deliveries.waitFor();
    expect(await deliveries.textContent()).toMatch(
      /enrollment\.started.*pending.*failed 500 \(endpoint answered 500\).*paused while the endpoint is disabled/s,
    );
    await screenshot(page, 'webhooks-disabled');

    // The receiver recovers; re-enabling sends what was pending.
    receiver.script([], 'ok');
    await row.getByRole('button', { name: `Re-enable ${receiver.url}` }).click();
    await page.getByRole('status').filter({ hasText: 'enabled' }).waitFor();
    const ok = await waitFor(async () => receiver.requests.find((r) => r.headers['webhook-id'] === effectId && r.answered === 'ok'), {
      what: 'the delivery after re-enabling',
    });
    expect(() => new Webhook(secret).verify(ok.body, ok.headers)).not.toThrow();
    await waitFor(
      async () => {
        await page.getByRole('button', { name: 'Refresh deliveries' }).click();
        return /delivered/.test((await deliveries.textContent()) ?? '');
      },
      { what: 'the delivery shown as delivered', intervalMs: 300 },
    );
    expect(await deliveries.textContent()).toMatch(/ok 204/);
    expect(await row.textContent()).toMatch(/enabled/);
    await screenshot(page, 'webhooks');
    expect(problems).toEqual([]);
    await page.context().close();
  });
});
