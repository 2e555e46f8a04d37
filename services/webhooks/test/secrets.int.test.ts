// The signing secrets at rest, on the real stack (gateway → webhooks service, Postgres, Kafka, a
// real local receiver): a subscribed endpoint's row holds its secret sealed (AES-256-GCM under
// WEBHOOKS_SECRET_KEY), never in clear, and deliveries still verify with the secret the API
// answered; a clear whsec_ secret from before encryption is sealed by the next start and keeps
// signing; a new WEBHOOKS_SECRET_KEY with the old one in WEBHOOKS_SECRET_KEY_PREVIOUS seals every
// row again under the new key, and nothing changes for the receiver.
import { randomUUID } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import type { RunningGateway } from '@glimpse/gateway';
import { TOPICS, personKey } from '@glimpse/messaging';
import { DEV_WEBHOOKS_SECRET_KEY, type RunningWebhooksService } from '@glimpse/webhooks';
import { api, createManager, type Manager } from '../../gateway/test/management-helpers';
import { closeTestDb, startTestGateway, testDb, uniqueEmail, waitFor } from '../../../test/support/stack';
import { produceRaw } from '../../../test/support/kafka-helpers';
import { startReceiver, startTestWebhooksService, type Receiver } from '../../../test/support/webhooks';
import { createSecretBox } from '../src/domain/secret-box';
import { sealStoredSecrets } from '../src/data/endpoint-repository';

const NEW_KEY = `a-new-webhooks-secret-key-${randomUUID()}`;

let webhooks: RunningWebhooksService;
let gateway: RunningGateway;
let receiver: Receiver;
const accounts: string[] = [];

beforeAll(async () => {
  receiver = await startReceiver();
  webhooks = await startTestWebhooksService();
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

/** Another webhooks service in place of the running one (the gateway is pointed at it). */
async function restartWith(overrides: Record<string, string>): Promise<void> {
  await gateway.stop();
  await webhooks.stop();
  webhooks = await startTestWebhooksService(overrides);
  gateway = await startTestGateway({ WEBHOOKS_URL: webhooks.url });
}

async function manager(): Promise<Manager> {
  const m = await createManager();
  accounts.push(m.accountId);
  return m;
}

async function produceEffect(accountId: string): Promise<string> {
  const email = uniqueEmail();
  const effectId = randomUUID();
  const effect = { effectId, eventId: randomUUID(), accountId, playbookId: randomUUID(), email, action: 'started', at: new Date().toISOString() };
  await produceRaw(TOPICS.playbookEffects, [{ key: personKey(accountId, email), value: JSON.stringify(effect) }]);
  return effectId;
}

const delivered = (effectId: string) =>
  waitFor(async () => receiver.requests.find((r) => r.headers['webhook-id'] === effectId && r.answered === 'ok'), { what: `the delivery of ${effectId}` });

const row = (id: string) => testDb('webhooks').webhookEndpoint.findUniqueOrThrow({ where: { id }, select: { secret: true, previousSecret: true } });

describe('signing secrets at rest', () => {
  it('when an endpoint is subscribed or its secret rotated, then Postgres holds them sealed, and deliveries verify with the secrets the API answered', async () => {
    const m = await manager();
    const client = api(gateway.url, m.key);
    const created = await client.post('/account/webhooks', { url: receiver.url, events: ['enrollment.started'] });
    expect(created.status).toBe(201);
    const secret = created.body.secret as string;

    const stored = await row(created.body.id);
    const box = createSecretBox(DEV_WEBHOOKS_SECRET_KEY);
    expect(stored.secret).toMatch(new RegExp(`^wsk1\\.${box.currentKeyId}\\.`));
    expect(stored.secret).not.toContain(secret.slice('whsec_'.length));
    expect(box.open(created.body.id, stored.secret)).toBe(secret);

    const rotated = await client.post(`/account/webhooks/${created.body.id}/rotate-secret`);
    const both = await row(created.body.id);
    expect([both.secret, both.previousSecret].every((s) => s?.startsWith('wsk1.'))).toBe(true);
    expect(JSON.stringify(both)).not.toContain(secret.slice(6));
    expect(JSON.stringify(both)).not.toContain((rotated.body.secret as string).slice(6));

    const r = await delivered(await produceEffect(m.accountId));
    expect(() => new Webhook(rotated.body.secret).verify(r.body, r.headers)).not.toThrow();
    expect(() => new Webhook(secret).verify(r.body, r.headers)).not.toThrow();
  });

  it('when a secret is stored in clear (from before encryption), then it signs, and the next start seals it', async () => {
    const m = await manager();
    const legacy = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
    const endpoint = await testDb('webhooks').webhookEndpoint.create({
      data: { accountId: m.accountId, url: receiver.url, events: ['enrollment.started'], secret: legacy },
    });

    const before = await delivered(await produceEffect(m.accountId));
    expect(() => new Webhook(legacy).verify(before.body, before.headers)).not.toThrow();

    await restartWith({});
    const sealed = await waitFor(
      async () => {
        const s = (await row(endpoint.id)).secret;
        return s.startsWith('wsk1.') ? s : undefined;
      },
      { what: 'the clear secret sealed at start' },
    );
    expect(createSecretBox(DEV_WEBHOOKS_SECRET_KEY).open(endpoint.id, sealed)).toBe(legacy);
    const after = await delivered(await produceEffect(m.accountId));
    expect(() => new Webhook(legacy).verify(after.body, after.headers)).not.toThrow();
  });

  it('when WEBHOOKS_SECRET_KEY changes with the old key kept as previous, then every secret is sealed again under the new key and deliveries still verify', async () => {
    const m = await manager();
    const created = await api(gateway.url, m.key).post('/account/webhooks', { url: receiver.url, events: ['enrollment.started'] });
    const secret = created.body.secret as string;
    const [oldBox, newBox] = [createSecretBox(DEV_WEBHOOKS_SECRET_KEY), createSecretBox(NEW_KEY)];
    try {
      await restartWith({ WEBHOOKS_SECRET_KEY: NEW_KEY, WEBHOOKS_SECRET_KEY_PREVIOUS: DEV_WEBHOOKS_SECRET_KEY });

      const resealed = await waitFor(
        async () => {
          const s = (await row(created.body.id)).secret;
          return newBox.isCurrent(s) ? s : undefined;
        },
        { what: 'the secret sealed under the new key' },
      );
      expect(newBox.open(created.body.id, resealed)).toBe(secret);
      expect(() => oldBox.open(created.body.id, resealed)).toThrow();
      const r = await delivered(await produceEffect(m.accountId));
      expect(() => new Webhook(secret).verify(r.body, r.headers)).not.toThrow();
    } finally {
      // The test database is shared: every row goes back under the development key the other tests use.
      await restartWith({});
      await sealStoredSecrets(testDb('webhooks'), createSecretBox(DEV_WEBHOOKS_SECRET_KEY, [NEW_KEY]));
    }
    expect(oldBox.isCurrent((await row(created.body.id)).secret)).toBe(true);
  });
});
