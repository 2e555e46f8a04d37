// The management API of webhooks, through the gateway over HTTP to the webhooks service, on real
// Postgres: subscribe, list, read, change, delete, rotate the secret, read deliveries; refusals
// with {error, message}; the SSRF guard at subscription and at delivery. The service here runs as
// in production (no loopback targets): URLs the tests subscribe are public IP literals no effect
// is ever produced for, so nothing is sent to them.
import { randomUUID } from 'node:crypto';
import type { RunningGateway } from '@glimpse/gateway';
import { TOPICS, personKey } from '@glimpse/messaging';
import { DEV_WEBHOOKS_SECRET_KEY, type RunningWebhooksService } from '@glimpse/webhooks';
import { api, createManager, ISO_TIME, type Manager } from '../../gateway/test/management-helpers';
import { closeTestDb, startTestGateway, testDb, uniqueEmail, waitFor } from '../../../test/support/stack';
import { produceRaw } from '../../../test/support/kafka-helpers';
import { startReceiver, startTestWebhooksService, type Receiver } from '../../../test/support/webhooks';
import { createSecretBox } from '../src/domain/secret-box';

const PUBLIC_URL = 'https://93.184.216.34/glimpse-hooks';
const MAX_ENDPOINTS = 3;

let webhooks: RunningWebhooksService;
let gateway: RunningGateway;
const accounts: string[] = [];

async function manager(): Promise<Manager> {
  const m = await createManager();
  accounts.push(m.accountId);
  return m;
}

beforeAll(async () => {
  webhooks = await startTestWebhooksService({ WEBHOOKS_ALLOW_LOOPBACK: 'false', WEBHOOKS_MAX_ENDPOINTS_PER_ACCOUNT: String(MAX_ENDPOINTS) });
  gateway = await startTestGateway({ WEBHOOKS_URL: webhooks.url });
});

afterAll(async () => {
  await gateway?.stop();
  await webhooks?.stop();
  // Once the services are stopped: a delete under a running dispatcher's claims can deadlock with them.
  await testDb('webhooks').webhookEndpoint.deleteMany({ where: { accountId: { in: accounts } } });
  await closeTestDb();
});

describe('managing webhook endpoints', () => {
  it('when an endpoint is subscribed, then the answer has its whsec_ secret once, and reads never show it', async () => {
    const m = await manager();
    const client = api(gateway.url, m.key);

    const created = await client.post('/account/webhooks', { url: PUBLIC_URL, events: ['enrollment.started', 'enrollment.stopped'] });

    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: expect.any(String),
      kind: 'webhook',
      url: PUBLIC_URL,
      events: ['enrollment.started', 'enrollment.stopped'],
      enabled: true,
      disabledReason: null,
      disabledAt: null,
      failingSince: null,
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/),
      createdAt: expect.stringMatching(ISO_TIME),
      updatedAt: expect.stringMatching(ISO_TIME),
    });
    const { secret, ...view } = created.body;
    expect((await client.get('/account/webhooks')).body).toEqual({ items: [view] });
    expect((await client.get(`/account/webhooks/${view.id}`)).body).toEqual(view);
    expect(JSON.stringify((await client.get('/account/webhooks')).body)).not.toContain(secret);
  });

  it('when an endpoint is changed, then only the given fields change; disabling by hand says so', async () => {
    const m = await manager();
    const client = api(gateway.url, m.key);
    const { body: created } = await client.post('/account/webhooks', { url: PUBLIC_URL, events: ['enrollment.started'] });

    const changed = await client.patch(`/account/webhooks/${created.id}`, { events: ['enrollment.stopped'], enabled: false });

    expect(changed.status).toBe(200);
    expect(changed.body).toMatchObject({
      url: PUBLIC_URL,
      events: ['enrollment.stopped'],
      enabled: false,
      disabledReason: 'user',
      disabledAt: expect.stringMatching(ISO_TIME),
    });
    const enabled = await client.patch(`/account/webhooks/${created.id}`, { enabled: true });
    expect(enabled.body).toMatchObject({ enabled: true, disabledReason: null, disabledAt: null });
  });

  it('when the secret is rotated, then a new secret is answered once and the old one is kept signing for a grace period', async () => {
    const m = await manager();
    const client = api(gateway.url, m.key);
    const { body: created } = await client.post('/account/webhooks', { url: PUBLIC_URL, events: ['enrollment.started'] });

    const rotated = await client.post(`/account/webhooks/${created.id}/rotate-secret`);

    expect(rotated.status).toBe(200);
    expect(rotated.body.secret).toMatch(/^whsec_/);
    expect(rotated.body.secret).not.toBe(created.secret);
    expect(new Date(rotated.body.previousSecretExpiresAt).getTime()).toBeGreaterThan(Date.now());
    // Stored sealed (secrets.int.test.ts): they open to the new secret and the previous one.
    const row = await testDb('webhooks').webhookEndpoint.findUniqueOrThrow({ where: { id: created.id } });
    const box = createSecretBox(DEV_WEBHOOKS_SECRET_KEY);
    expect({ secret: box.open(created.id, row.secret), previous: box.open(created.id, row.previousSecret!) }).toEqual({
      secret: rotated.body.secret,
      previous: created.secret,
    });
  });

  it('when an endpoint is deleted, then it is gone', async () => {
    const m = await manager();
    const client = api(gateway.url, m.key);
    const { body: created } = await client.post('/account/webhooks', { url: PUBLIC_URL, events: ['enrollment.started'] });

    expect((await client.del(`/account/webhooks/${created.id}`)).status).toBe(204);

    expect((await client.get(`/account/webhooks/${created.id}`)).status).toBe(404);
    expect((await client.del(`/account/webhooks/${created.id}`)).status).toBe(404);
  });

  it("when another account's endpoint (or no endpoint) is named, then every route answers 404", async () => {
    const owner = await manager();
    const other = api(gateway.url, (await manager()).key);
    const { body: created } = await api(gateway.url, owner.key).post('/account/webhooks', { url: PUBLIC_URL, events: ['enrollment.started'] });

    for (const id of [created.id, randomUUID(), 'not-a-uuid']) {
      const answers = await Promise.all([
        other.get(`/account/webhooks/${id}`),
        other.patch(`/account/webhooks/${id}`, { enabled: false }),
        other.del(`/account/webhooks/${id}`),
        other.post(`/account/webhooks/${id}/rotate-secret`),
        other.get(`/account/webhooks/${id}/deliveries`),
      ]);
      for (const a of answers) expect({ id, status: a.status, error: a.body.error }).toEqual({ id, status: 404, error: 'not_found' });
    }
    expect((await api(gateway.url, owner.key).get(`/account/webhooks/${created.id}`)).body.enabled).toBe(true);
  });

  it.each([
    [{ url: PUBLIC_URL }, 'events is required'],
    [{ url: PUBLIC_URL, events: ['enrollment.paused'] }, 'each event must be one of'],
    [{ url: 'ftp://93.184.216.34/x', events: ['enrollment.started'] }, 'http or https'],
    [{ url: 'https://user:pw@93.184.216.34/x', events: ['enrollment.started'] }, 'credentials'],
    [{ url: PUBLIC_URL, events: ['enrollment.started'], secret: 'mine' }, 'unknown field(s): secret'],
  ])('when the body is %j, then 400 says why and nothing is created', async (body, message) => {
    const m = await manager();
    const client = api(gateway.url, m.key);

    const res = await client.post('/account/webhooks', body);

    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'invalid_request', message: expect.stringContaining(message) });
    expect((await client.get('/account/webhooks')).body.items).toEqual([]);
  });

  it('when an account has the most endpoints allowed, then one more is refused with 409', async () => {
    const m = await manager();
    const client = api(gateway.url, m.key);
    for (let i = 0; i < MAX_ENDPOINTS; i++)
      expect((await client.post('/account/webhooks', { url: `${PUBLIC_URL}/${i}`, events: ['enrollment.started'] })).status).toBe(201);

    const res = await client.post('/account/webhooks', { url: PUBLIC_URL, events: ['enrollment.started'] });

    expect(res.status).toBe(409);
    expect(res.body).toEqual({ error: 'limit_reached', message: expect.stringContaining(`at most ${MAX_ENDPOINTS}`) });
  });

  it('when a key lacks account:manage, then 403', async () => {
    const m = await createManager(['visitors:read']);
    accounts.push(m.accountId);
    const res = await api(gateway.url, m.key).get('/account/webhooks');
    expect(res.status).toBe(403);
  });

  it('when the deliveries query is malformed, then 400', async () => {
    const m = await manager();
    const client = api(gateway.url, m.key);
    const { body: created } = await client.post('/account/webhooks', { url: PUBLIC_URL, events: ['enrollment.started'] });
    for (const q of ['?limit=0', '?cursor=nope', '?status=lost', '?page=2']) {
      const res = await client.get(`/account/webhooks/${created.id}/deliveries${q}`);
      expect({ q, status: res.status, error: res.body.error }).toEqual({ q, status: 400, error: 'invalid_request' });
    }
    expect((await client.get(`/account/webhooks/${created.id}/deliveries`)).body).toEqual({ items: [], nextCursor: null });
  });
});

describe('SSRF guard', () => {
  it.each([
    'http://127.0.0.1:9/x',
    'http://localhost:9/x',
    'http://[::1]:9/x',
    'http://10.0.0.1/x',
    'http://192.168.1.10/x',
    'http://169.254.169.254/latest/meta-data',
    'http://[fd00::1]/x',
    'http://0.0.0.0/x',
  ])('when %s is subscribed, then it is refused: it is not a public address (a name refused names no address)', async (url) => {
    const m = await manager();
    const client = api(gateway.url, m.key);

    const res = await client.post('/account/webhooks', { url, events: ['enrollment.started'] });

    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'invalid_request', message: expect.stringContaining('public address') });
    if (url.includes('localhost')) expect(res.body.message).toBe('url is not allowed: its host must resolve to public addresses only');
    expect((await client.get('/account/webhooks')).body.items).toEqual([]);
  });

  it('when a public endpoint is changed to a private URL, then the change is refused', async () => {
    const m = await manager();
    const client = api(gateway.url, m.key);
    const { body: created } = await client.post('/account/webhooks', { url: PUBLIC_URL, events: ['enrollment.started'] });

    const res = await client.patch(`/account/webhooks/${created.id}`, { url: 'http://10.1.2.3/x' });

    expect(res.status).toBe(400);
    expect((await client.get(`/account/webhooks/${created.id}`)).body.url).toBe(PUBLIC_URL);
  });

  describe('at delivery', () => {
    let receiver: Receiver;
    beforeAll(async () => {
      receiver = await startReceiver();
    });
    afterAll(() => receiver.close());

    it('when a stored target now resolves to a private address, then the attempt is refused and nothing reaches it', async () => {
      // As if its name had been re-pointed after subscription: the row is written as it would be then.
      const m = await manager();
      const endpoint = await testDb('webhooks').webhookEndpoint.create({
        data: {
          accountId: m.accountId,
          url: `http://localhost:${receiver.port}/hooks`,
          events: ['enrollment.started'],
          secret: `whsec_${Buffer.alloc(32, 1).toString('base64')}`,
        },
      });
      const email = uniqueEmail();
      const effect = {
        effectId: randomUUID(),
        eventId: randomUUID(),
        accountId: m.accountId,
        playbookId: randomUUID(),
        email,
        action: 'started',
        at: new Date().toISOString(),
      };

      await produceRaw(TOPICS.playbookEffects, [{ key: personKey(m.accountId, email), value: JSON.stringify(effect) }]);

      const page = await waitFor(
        async () => {
          const res = await api(gateway.url, m.key).get(`/account/webhooks/${endpoint.id}/deliveries`);
          return res.body.items?.[0]?.attempts?.length > 0 ? res.body : undefined;
        },
        { what: 'a refused attempt' },
      );
      expect(page.items[0]).toMatchObject({ effectId: effect.effectId, type: 'enrollment.started' });
      expect(page.items[0].attempts[0]).toMatchObject({
        succeeded: false,
        responseStatus: null,
        error: 'target refused: the host must resolve to public addresses only',
      });
      expect(receiver.requests).toEqual([]);
    });
  });
});

describe('when the webhooks service is down', () => {
  it('then the management routes answer 503 with Retry-After', async () => {
    const m = await manager();
    const down = await startTestGateway({ WEBHOOKS_URL: 'http://127.0.0.1:9' });
    try {
      const res = await api(down.url, m.key).get('/account/webhooks');
      expect(res.status).toBe(503);
      expect(res.headers.get('retry-after')).toBeTruthy();
      expect(res.body.error).toBe('service_unavailable');
    } finally {
      await down.stop();
    }
  });
});
