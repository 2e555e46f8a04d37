// Webhook targets on the real stack (gateway → webhooks service over HTTP, Postgres, Kafka, a real
// local receiver) with a real name server on a local UDP port (test/support/dns-server) as the
// service's only resolver (WEBHOOKS_DNS_SERVERS): names resolve off libuv's pool, a name server
// that never answers fails a delivery cleanly within WEBHOOKS_DNS_TIMEOUT_MS, a refused name's 400
// and attempt log name no address, and with https required (production) http targets are refused
// at subscription and at delivery.
import { randomUUID } from 'node:crypto';
import type { RunningGateway } from '@glimpse/gateway';
import { TOPICS, personKey } from '@glimpse/messaging';
import type { RunningWebhooksService } from '@glimpse/webhooks';
import { api, createManager, type Manager } from '../../gateway/test/management-helpers';
import { closeTestDb, startTestGateway, testDb, uniqueEmail, waitFor } from '../../../test/support/stack';
import { produceRaw } from '../../../test/support/kafka-helpers';
import { startReceiver, startTestWebhooksService, type Receiver } from '../../../test/support/webhooks';
import { startDnsServer, type DnsServer } from './support/dns-server';

const DNS_TIMEOUT_MS = 500;
const NAME_REFUSED = 'url is not allowed: its host must resolve to public addresses only';

let dns: DnsServer;
let receiver: Receiver;
const accounts: string[] = [];

beforeAll(async () => {
  [dns, receiver] = await Promise.all([
    startDnsServer({ 'hooks.glimpse.test': ['127.0.0.1'], 'internal.glimpse.test': ['10.1.2.3', '93.184.216.34'], 'meta.glimpse.test': ['169.254.169.254'] }),
    startReceiver(),
  ]);
});

afterAll(async () => {
  await testDb('webhooks').webhookEndpoint.deleteMany({ where: { accountId: { in: accounts } } });
  await Promise.all([dns?.close(), receiver?.close()]);
  await closeTestDb();
});

interface Stack {
  webhooks: RunningWebhooksService;
  gateway: RunningGateway;
  stop(): Promise<void>;
}

/** A webhooks service and a gateway in front of it; each describe stops its own (one dispatcher at a time claims the deliveries). */
async function stack(overrides: Record<string, string>): Promise<Stack> {
  const webhooks = await startTestWebhooksService(overrides);
  const gateway = await startTestGateway({ WEBHOOKS_URL: webhooks.url });
  return {
    webhooks,
    gateway,
    stop: async () => {
      await gateway.stop();
      await webhooks.stop();
    },
  };
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

interface Attempt {
  succeeded: boolean;
  error: string | null;
  durationMs: number;
  responseStatus: number | null;
}

async function attemptsOf(gatewayUrl: string, m: Manager, endpointId: string, effectId: string, count = 1): Promise<Attempt[]> {
  return waitFor(
    async () => {
      const res = await api(gatewayUrl, m.key).get(`/account/webhooks/${endpointId}/deliveries`);
      const item = (res.body.items as { effectId: string; attempts: Attempt[] }[] | undefined)?.find((d) => d.effectId === effectId);
      return item && item.attempts.length >= count ? item.attempts : undefined;
    },
    { what: `${count} attempt(s) of ${effectId}` },
  );
}

describe('names resolved by the service itself (dns.promises.Resolver), bounded in time', () => {
  let gateway: RunningGateway;
  let running: Stack | undefined;

  beforeAll(async () => {
    running = await stack({
      WEBHOOKS_DNS_SERVERS: dns.address,
      WEBHOOKS_DNS_TIMEOUT_MS: String(DNS_TIMEOUT_MS),
      WEBHOOKS_TIMEOUT_MS: '5000',
      WEBHOOKS_RETRY_BASE_MS: '200',
    });
    gateway = running.gateway;
  });

  afterAll(() => running?.stop());

  afterEach(() => dns.silent(false));

  /** A name of its own per test: a kept-alive connection to an origin is reused without a lookup. */
  const freshName = (tag: string) => {
    const name = `${tag}-${randomUUID().slice(0, 8)}.glimpse.test`;
    dns.records.set(name, ['127.0.0.1']);
    return name;
  };

  it('when a target is a name only the configured name server knows, then it is subscribed and delivered to the address it answered', async () => {
    const m = await manager();
    const created = await api(gateway.url, m.key).post('/account/webhooks', {
      url: `http://hooks.glimpse.test:${receiver.port}/hooks`,
      events: ['enrollment.started'],
    });
    expect(created.status).toBe(201);
    expect(dns.queries).toContain('hooks.glimpse.test/A');

    const effectId = await produceEffect(m.accountId);

    await waitFor(async () => receiver.requests.find((r) => r.headers['webhook-id'] === effectId), { what: 'the delivery through the resolved name' });
    const [attempt] = await attemptsOf(gateway.url, m, created.body.id, effectId);
    expect(attempt).toMatchObject({ succeeded: true, responseStatus: 204 });
  });

  it('when the name server stops answering, then an attempt fails cleanly within the DNS timeout (not the request timeout), and goes out once it answers again', async () => {
    const m = await manager();
    const created = await api(gateway.url, m.key).post('/account/webhooks', {
      url: `http://${freshName('slow')}:${receiver.port}/hooks`,
      events: ['enrollment.started'],
    });
    expect(created.status).toBe(201);
    dns.silent(true);

    const effectId = await produceEffect(m.accountId);

    const [failed] = await attemptsOf(gateway.url, m, created.body.id, effectId);
    expect(failed).toMatchObject({ succeeded: false, responseStatus: null, error: `DNS: no answer for the name within ${DNS_TIMEOUT_MS} ms` });
    // The attempt took the DNS timeout, not WEBHOOKS_TIMEOUT_MS (5 s); 1 s of slack for a loaded 2-core machine.
    expect(failed!.durationMs).toBeGreaterThanOrEqual(DNS_TIMEOUT_MS - 10);
    expect(failed!.durationMs).toBeLessThan(DNS_TIMEOUT_MS + 1000);
    expect(receiver.requests.some((r) => r.headers['webhook-id'] === effectId)).toBe(false);

    dns.silent(false);
    await waitFor(async () => receiver.requests.find((r) => r.headers['webhook-id'] === effectId), { what: 'the retry once the name server answers' });
  });

  it('when the name server does not answer at subscription, then 400 within the DNS timeout says to try again', async () => {
    dns.silent(true);
    const m = await manager();
    const started = Date.now();
    const res = await api(gateway.url, m.key).post('/account/webhooks', {
      url: `http://hooks.glimpse.test:${receiver.port}/hooks`,
      events: ['enrollment.started'],
    });
    expect(Date.now() - started).toBeLessThan(DNS_TIMEOUT_MS + 1500);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'invalid_request', message: "url's host did not resolve in time; try again" });
  });

  it.each([
    ['a name with a private address among public ones', 'http://internal.glimpse.test/x'],
    ['a name of the metadata address', 'http://meta.glimpse.test/x'],
    ['a name that does not exist', 'http://nowhere.glimpse.test/x'],
  ])('when %s is subscribed, then the 400 is the same words, naming no address', async (_what, url) => {
    const m = await manager();
    const res = await api(gateway.url, m.key).post('/account/webhooks', { url, events: ['enrollment.started'] });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'invalid_request', message: NAME_REFUSED });
    expect(JSON.stringify(res.body)).not.toMatch(/10\.1\.2\.3|169\.254|93\.184|private|linkLocal/);
  });

  it('when a subscribed name is re-pointed to a private address, then the attempt is refused before connecting, and its log names no address', async () => {
    const m = await manager();
    const name = freshName('repointed');
    const created = await api(gateway.url, m.key).post('/account/webhooks', { url: `http://${name}:${receiver.port}/hooks`, events: ['enrollment.started'] });
    expect(created.status).toBe(201);
    dns.records.set(name, ['10.9.8.7']);

    const effectId = await produceEffect(m.accountId);

    const [refused] = await attemptsOf(gateway.url, m, created.body.id, effectId);
    expect(refused).toMatchObject({ succeeded: false, responseStatus: null, error: 'target refused: the host must resolve to public addresses only' });
    expect(receiver.requests.some((r) => r.headers['webhook-id'] === effectId)).toBe(false);
  });
});

describe('https only (WEBHOOKS_REQUIRE_HTTPS, always on in production)', () => {
  let gateway: RunningGateway;
  let running: Stack | undefined;

  beforeAll(async () => {
    // As in production: https required, no loopback targets.
    running = await stack({ WEBHOOKS_REQUIRE_HTTPS: 'true', WEBHOOKS_ALLOW_LOOPBACK: 'false' });
    gateway = running.gateway;
  });

  afterAll(() => running?.stop());

  it('when an http target is subscribed or an endpoint changed to one, then 400 says https, and https is accepted', async () => {
    const m = await manager();
    const client = api(gateway.url, m.key);

    const refused = await client.post('/account/webhooks', { url: 'http://93.184.216.34/hooks', events: ['enrollment.started'] });
    const created = await client.post('/account/webhooks', { url: 'https://93.184.216.34/hooks', events: ['enrollment.started'] });
    const changed = await client.patch(`/account/webhooks/${created.body.id}`, { url: 'http://93.184.216.34/other' });

    expect(refused.status).toBe(400);
    expect(refused.body).toEqual({ error: 'invalid_request', message: 'url must use https' });
    expect(created.status).toBe(201);
    expect(changed.status).toBe(400);
    expect(changed.body.message).toBe('url must use https');
    expect((await client.get('/account/webhooks')).body.items.map((e: { url: string }) => e.url)).toEqual(['https://93.184.216.34/hooks']);
  });

  it('when an endpoint stored as http before https was required has a delivery, then the attempt is refused and nothing is sent over http', async () => {
    const m = await manager();
    // Written as it was before: an http URL (the local receiver) the service would have accepted.
    const endpoint = await testDb('webhooks').webhookEndpoint.create({
      data: {
        accountId: m.accountId,
        url: `http://localhost:${receiver.port}/hooks`,
        events: ['enrollment.started'],
        secret: `whsec_${Buffer.alloc(32, 2).toString('base64')}`,
      },
    });

    const effectId = await produceEffect(m.accountId);

    const [refused] = await attemptsOf(gateway.url, m, endpoint.id, effectId);
    expect(refused).toMatchObject({ succeeded: false, responseStatus: null, error: 'target refused: url must use https' });
    expect(receiver.requests.some((r) => r.headers['webhook-id'] === effectId)).toBe(false);
  });
});
