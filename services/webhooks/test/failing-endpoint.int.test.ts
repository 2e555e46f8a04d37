// An endpoint that keeps failing is disabled (here after 1 s instead of a day) and re-enabled
// through the API, after which what was pending is delivered; pending retries survive a restart
// of the service (they are rows in Postgres, not timers). Effects are produced straight onto
// playbook.effects, as the playbook service writes them.
import { randomUUID } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import type { RunningGateway } from '@glimpse/gateway';
import { TOPICS, personKey } from '@glimpse/messaging';
import type { RunningWebhooksService } from '@glimpse/webhooks';
import { api, createManager, type Manager } from '../../gateway/test/management-helpers';
import { closeTestDb, startTestGateway, testDb, uniqueEmail, waitFor } from '../../../test/support/stack';
import { freshGroupAtEnd, produceRaw } from '../../../test/support/kafka-helpers';
import { startReceiver, startTestWebhooksService, type Receiver } from '../../../test/support/webhooks';

const SETTINGS = { WEBHOOKS_DISABLE_AFTER_MS: '1000', WEBHOOKS_RETRY_WINDOW_MS: '600000' };

let groupId: string;
let webhooks: RunningWebhooksService;
let gateway: RunningGateway;
let receiver: Receiver;
const accounts: string[] = [];

beforeAll(async () => {
  receiver = await startReceiver();
  groupId = await freshGroupAtEnd(TOPICS.playbookEffects, 'glimpse-webhooks-test-failing');
  webhooks = await startTestWebhooksService({ ...SETTINGS, WEBHOOKS_GROUP_ID: groupId });
  gateway = await startTestGateway({ WEBHOOKS_URL: webhooks.url });
});

afterAll(async () => {
  await gateway?.stop();
  await webhooks?.stop();
  await receiver?.close();
  // Once the services are stopped: a delete under a running dispatcher's claims can deadlock with them.
  await testDb('webhooks').webhookEndpoint.deleteMany({ where: { accountId: { in: accounts } } });
  await closeTestDb();
});

async function subscribed(): Promise<{ manager: Manager; endpointId: string; secret: string }> {
  const manager = await createManager();
  accounts.push(manager.accountId);
  const created = await api(gateway.url, manager.key).post('/account/webhooks', { url: receiver.url, events: ['enrollment.started', 'enrollment.stopped'] });
  expect(created.status).toBe(201);
  return { manager, endpointId: created.body.id, secret: created.body.secret };
}

async function produceEffect(accountId: string, email = uniqueEmail()): Promise<string> {
  const effectId = randomUUID();
  const effect = { effectId, eventId: randomUUID(), accountId, playbookId: randomUUID(), email, action: 'started', at: new Date().toISOString() };
  await produceRaw(TOPICS.playbookEffects, [{ key: personKey(accountId, email), value: JSON.stringify(effect) }]);
  return effectId;
}

const okFor = (effectId: string) => receiver.requests.find((r) => r.headers['webhook-id'] === effectId && r.answered === 'ok');

describe('a failing endpoint', () => {
  it('when every attempt fails for the disable period, then the endpoint is disabled, and re-enabling it delivers what was pending', async () => {
    const { manager, endpointId, secret } = await subscribed();
    const client = api(gateway.url, manager.key);
    receiver.script([], 'fail');

    const effectId = await produceEffect(manager.accountId);

    const disabled = await waitFor(
      async () => {
        const res = await client.get(`/account/webhooks/${endpointId}`);
        return res.body.enabled === false ? res.body : undefined;
      },
      { what: 'the endpoint disabled' },
    );
    expect(disabled).toMatchObject({ enabled: false, disabledReason: 'failing', disabledAt: expect.any(String), failingSince: expect.any(String) });
    const [delivery] = (await client.get(`/account/webhooks/${endpointId}/deliveries`)).body.items;
    expect(delivery).toMatchObject({ effectId, status: 'pending' });
    expect(delivery.attempts.length).toBeGreaterThanOrEqual(2);
    expect(delivery.attempts.every((a: { responseStatus: number }) => a.responseStatus === 500)).toBe(true);

    receiver.script([], 'ok');
    const enabled = await client.patch(`/account/webhooks/${endpointId}`, { enabled: true });

    expect(enabled.body).toMatchObject({ enabled: true, disabledReason: null, failingSince: null });
    const ok = await waitFor(async () => okFor(effectId), { what: 'the pending delivery after re-enabling' });
    expect(() => new Webhook(secret).verify(ok.body, ok.headers)).not.toThrow();
    await waitFor(async () => (await client.get(`/account/webhooks/${endpointId}/deliveries?status=delivered`)).body.items.length === 1, {
      what: 'the delivery recorded as delivered',
    });
  });

  it('when the service restarts while a delivery is being retried, then the retry goes on from Postgres and it arrives', async () => {
    const { manager, endpointId } = await subscribed();
    receiver.script([], 'fail');
    const effectId = await produceEffect(manager.accountId);
    await waitFor(async () => receiver.requests.some((r) => r.headers['webhook-id'] === effectId) || undefined, { what: 'a failed attempt' });

    await webhooks.stop();
    receiver.script([], 'ok');
    // Re-enable in case the failures disabled it meanwhile (the disable period here is 1 s).
    await testDb('webhooks').webhookEndpoint.update({
      where: { id: endpointId },
      data: { enabled: true, disabledReason: null, disabledAt: null, failingSince: null },
    });
    webhooks = await startTestWebhooksService({ ...SETTINGS, WEBHOOKS_GROUP_ID: groupId });

    await waitFor(async () => okFor(effectId), { what: 'the delivery after the restart' });
    // The receiver answered; the attempt is recorded just after.
    const row = await waitFor(
      async () => {
        const r = await testDb('webhooks').webhookDelivery.findFirstOrThrow({ where: { endpointId, effectId } });
        return r.status === 'delivered' ? r : undefined;
      },
      { what: 'the delivery recorded as delivered' },
    );
    expect(row.attempts).toBeGreaterThanOrEqual(2);
  });
});
