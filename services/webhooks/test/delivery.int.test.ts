// Webhooks end to end on the real stack: events through the gateway, the playbook service's
// effects on playbook.effects, the webhooks service signing and POSTing them to a real local
// receiver that fails, times out, then recovers. Every effect arrives at least once, in order per
// person, and verifies with the standardwebhooks package.
import { randomUUID } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import type { RunningGateway } from '@glimpse/gateway';
import { TOPICS, createErasedEmail, personKey } from '@glimpse/messaging';
import { DEV_ERASURE_KEY, type RunningPlaybookService } from '@glimpse/playbook';
import type { RunningWebhooksService } from '@glimpse/webhooks';
import { api, createManager, type Manager } from '../../gateway/test/management-helpers';
import {
  closeTestDb,
  postEvent,
  sendNamesOnce,
  startTestEnrichmentService,
  startTestGateway,
  startTestPlaybookService,
  testDb,
  uniqueEmail,
  waitFor,
} from '../../../test/support/stack';
import { produceRaw } from '../../../test/support/kafka-helpers';
import { startReceiver, startTestWebhooksService, type Receiver, type ReceivedRequest } from '../../../test/support/webhooks';
import { startTestVisitorsService } from '../../../test/support/visitors';
import type { RunningVisitorsService } from '@glimpse/visitors';
import type { RunningEnrichmentService } from '@glimpse/enrichment';

let playbook: RunningPlaybookService;
let webhooks: RunningWebhooksService;
let gateway: RunningGateway;
// An erasure reaches the visitors service (identity links) and enrichment (imported visitors) too:
// without them the erasure is a 503.
let visitors: RunningVisitorsService;
let enrichment: RunningEnrichmentService;
let receiver: Receiver;
const accounts: string[] = [];

beforeAll(async () => {
  receiver = await startReceiver();
  [playbook, webhooks, visitors, enrichment] = await Promise.all([
    startTestPlaybookService(),
    startTestWebhooksService(),
    startTestVisitorsService(),
    startTestEnrichmentService(),
  ]);
  gateway = await startTestGateway({ PLAYBOOK_URL: playbook.url, WEBHOOKS_URL: webhooks.url, VISITORS_URL: visitors.url, ENRICHMENT_URL: enrichment.url });
});

afterAll(async () => {
  await gateway?.stop();
  await Promise.all([playbook?.stop(), webhooks?.stop(), visitors?.stop(), enrichment?.stop()]);
  await receiver?.close();
  // Once the services are stopped: a delete under a running dispatcher's claims can deadlock with them.
  await testDb('webhooks').webhookEndpoint.deleteMany({ where: { accountId: { in: accounts } } });
  await closeTestDb();
});

interface Subscribed {
  manager: Manager;
  endpointId: string;
  secret: string;
}

/** An account with a playbook started by signed_up and stopped by purchase, subscribed to both effects. */
async function subscribedAccount(): Promise<Subscribed> {
  const manager = await createManager();
  accounts.push(manager.accountId);
  const client = api(gateway.url, manager.key);
  await sendNamesOnce(gateway.url, manager, ['signed_up', 'purchase']);
  expect((await client.post('/account/playbooks', { name: 'Trial', triggers: ['signed_up'], exits: ['purchase'] })).status).toBe(201);
  const created = await client.post('/account/webhooks', { url: receiver.url, events: ['enrollment.started', 'enrollment.stopped'] });
  expect(created.status).toBe(201);
  return { manager, endpointId: created.body.id, secret: created.body.secret };
}

const payload = (r: ReceivedRequest) =>
  JSON.parse(r.body) as {
    type: string;
    timestamp: string;
    data: { effectId: string; email: string; playbookId: string; eventId: string; reason?: string; at: string };
  };

/** Requests whose effect belongs to one of these emails (the receiver is shared by the tests). */
function requestsFor(emails: string[]): ReceivedRequest[] {
  return receiver.requests.filter((r) => emails.includes(payload(r).data.email));
}

async function deliveredIds(emails: string[], count: number): Promise<Set<string>> {
  return waitFor(
    async () => {
      const ok = new Set(
        requestsFor(emails)
          .filter((r) => r.answered === 'ok')
          .map((r) => r.headers['webhook-id']!),
      );
      return ok.size >= count ? ok : undefined;
    },
    { what: `${count} deliveries answered 2xx`, timeoutMs: 45_000 },
  );
}

describe('webhook delivery', () => {
  it('when the receiver fails, times out, then recovers, then every effect arrives signed, at least once, in order per person', async () => {
    const { manager, endpointId, secret } = await subscribedAccount();
    const emails = [uniqueEmail('a'), uniqueEmail('b'), uniqueEmail('c')];
    // The receiver hangs once, then fails until every effect is queued behind the failing starts.
    receiver.script(['hang'], 'fail');

    for (const email of emails)
      expect((await postEvent(gateway.url, manager.token, { event: 'signed_up', email, properties: { plan: 'private-plan-value' } })).status).toBe(200);
    for (const email of emails)
      expect((await postEvent(gateway.url, manager.token, { event: 'purchase', email, properties: { amount: 73519.0264 } })).status).toBe(200);
    await waitFor(async () => (await testDb('webhooks').webhookDelivery.count({ where: { endpointId } })) === 6, { what: 'six deliveries scheduled' });
    await waitFor(async () => requestsFor(emails).filter((r) => r.answered === 'fail').length >= 3 || undefined, { what: 'failed attempts' });
    expect(await testDb('webhooks').webhookDelivery.count({ where: { endpointId, status: 'delivered' } })).toBe(0);
    receiver.script([], 'ok');

    const ids = await deliveredIds(emails, 6);
    const seen = requestsFor(emails);
    // Signed per Standard Webhooks with the endpoint's secret; webhook-id is the effect id.
    const wh = new Webhook(secret);
    for (const r of seen.filter((x) => x.answered === 'ok')) {
      const verified = wh.verify(r.body, r.headers) as ReturnType<typeof payload>;
      expect(verified.data.effectId).toBe(r.headers['webhook-id']);
    }
    expect(ids.size).toBe(6);
    // No event property values, only who, which playbook, what and when.
    for (const r of seen) {
      expect(r.body).not.toContain('private-plan-value');
      expect(r.body).not.toContain('73519.0264'); // a number no id or time can hold (a UUID holds 4242 at times)
      expect(Object.keys(payload(r).data).sort()).toEqual(['at', 'effectId', 'email', 'eventId', 'playbookId']);
    }
    // Per person: started, then stopped; no attempt of the stop before the start was delivered.
    for (const email of emails) {
      const mine = seen.filter((r) => payload(r).data.email === email);
      const startedOk = mine.findIndex((r) => payload(r).type === 'enrollment.started' && r.answered === 'ok');
      const firstStop = mine.findIndex((r) => payload(r).type === 'enrollment.stopped');
      expect({ email, startedOk: startedOk >= 0, stopAfterStart: firstStop > startedOk }).toEqual({ email, startedOk: true, stopAfterStart: true });
      expect(mine.filter((r) => r.answered === 'ok').map((r) => payload(r).type)).toEqual(['enrollment.started', 'enrollment.stopped']);
    }
    // Each attempt is visible through the API: the failures with their codes, the time-out, the success.
    const page = await waitFor(
      async () => {
        const res = await api(gateway.url, manager.key).get(`/account/webhooks/${endpointId}/deliveries`);
        return res.body.items?.length === 6 && res.body.items.every((d: { status: string }) => d.status === 'delivered') ? res.body : undefined;
      },
      { what: 'six delivered deliveries in the API' },
    );
    const attempts = page.items.flatMap((d: { attempts: unknown[] }) => d.attempts);
    expect(attempts).toContainEqual(expect.objectContaining({ succeeded: false, responseStatus: 500, error: 'endpoint answered 500' }));
    expect(attempts).toContainEqual(expect.objectContaining({ succeeded: false, responseStatus: null, error: expect.stringMatching(/timed out/) }));
    for (const d of page.items) {
      expect(d.attempts.at(-1)).toMatchObject({ succeeded: true, responseStatus: 204, error: null, durationMs: expect.any(Number) });
      expect(d.nextAttemptAt).toBeNull();
    }
    expect(await testDb('webhooks').webhookEndpoint.findUniqueOrThrow({ where: { id: endpointId } })).toMatchObject({ enabled: true, failingSince: null });
  });

  it('when an effect is delivered twice on playbook.effects, then it is sent once per endpoint (webhook-id is the dedupe key)', async () => {
    const { manager, endpointId } = await subscribedAccount();
    receiver.script([], 'ok');
    const email = uniqueEmail('dup');
    const effect = {
      effectId: randomUUID(),
      eventId: randomUUID(),
      accountId: manager.accountId,
      playbookId: randomUUID(),
      email,
      action: 'started',
      at: new Date().toISOString(),
    };
    const message = { key: personKey(manager.accountId, email), value: JSON.stringify(effect) };

    await produceRaw(TOPICS.playbookEffects, [message, message]);

    await deliveredIds([email], 1);
    const rows = await testDb('webhooks').webhookDelivery.findMany({ where: { endpointId } });
    expect(rows.map((r) => r.effectId)).toEqual([effect.effectId]);
    expect(requestsFor([email]).map((r) => r.headers['webhook-id'])).toEqual([effect.effectId]);
  });

  it('when the secret is rotated, then deliveries carry signatures of both secrets during the grace period, and verify with the new one', async () => {
    const { manager, endpointId, secret: oldSecret } = await subscribedAccount();
    receiver.script([], 'ok');
    const rotated = await api(gateway.url, manager.key).post(`/account/webhooks/${endpointId}/rotate-secret`);
    const email = uniqueEmail('rotated');

    expect((await postEvent(gateway.url, manager.token, { event: 'signed_up', email })).status).toBe(200);

    await deliveredIds([email], 1);
    const [r] = requestsFor([email]);
    expect(r!.headers['webhook-signature']!.split(' ')).toHaveLength(2);
    expect(() => new Webhook(rotated.body.secret).verify(r!.body, r!.headers)).not.toThrow();
    expect(() => new Webhook(oldSecret).verify(r!.body, r!.headers)).not.toThrow();
    expect(() => new Webhook(`whsec_${Buffer.alloc(32, 7).toString('base64')}`).verify(r!.body, r!.headers)).toThrow();
  });

  it('when an endpoint subscribes to enrollment.started only, then stops are not sent to it', async () => {
    const { manager, endpointId } = await subscribedAccount();
    receiver.script([], 'ok');
    await api(gateway.url, manager.key).patch(`/account/webhooks/${endpointId}`, { events: ['enrollment.started'] });
    const [stopFirst, startAfter] = [uniqueEmail('stop'), uniqueEmail('start')];
    await postEvent(gateway.url, manager.token, { event: 'signed_up', email: stopFirst });
    await deliveredIds([stopFirst], 1);

    await postEvent(gateway.url, manager.token, { event: 'purchase', email: stopFirst });
    await postEvent(gateway.url, manager.token, { event: 'signed_up', email: startAfter });
    await deliveredIds([startAfter], 1);

    await waitFor(async () => (await testDb('playbook').playbookEffect.count({ where: { accountId: manager.accountId, action: 'stopped' } })) === 1, {
      what: 'the stop effect',
    });
    const types = (await testDb('webhooks').webhookDelivery.findMany({ where: { endpointId } })).map((d) => d.type);
    expect(types).toEqual(['enrollment.started', 'enrollment.started']);
    expect(requestsFor([stopFirst, startAfter]).map((r) => payload(r).type)).toEqual(['enrollment.started', 'enrollment.started']);
  });

  it('when a person is suppressed or erased, then their stopped enrollment is sent with the reason (an erasure with the hashed stand-in, never the email)', async () => {
    const { manager, secret } = await subscribedAccount();
    const client = api(gateway.url, manager.key);
    const [suppressed, erased] = [uniqueEmail('supp-hook'), uniqueEmail('erase-hook')];
    const hash = createErasedEmail(DEV_ERASURE_KEY)(manager.accountId, erased);
    receiver.script([], 'ok');
    for (const email of [suppressed, erased]) expect((await postEvent(gateway.url, manager.token, { event: 'signed_up', email })).status).toBe(200);
    await deliveredIds([suppressed, erased], 2);

    expect((await client.post('/account/suppressions', { email: suppressed })).body.stoppedEnrollments).toBe(1);
    expect((await client.del(`/account/persons/${encodeURIComponent(erased)}`)).body.stoppedEnrollments).toBe(1);

    await deliveredIds([suppressed, erased, hash], 4);
    const stops = requestsFor([suppressed, hash]).filter((r) => payload(r).type === 'enrollment.stopped' && r.answered === 'ok');
    const wh = new Webhook(secret);
    for (const r of stops) wh.verify(r.body, r.headers);
    expect(stops.map((r) => [payload(r).data.email, payload(r).data.reason]).sort()).toEqual(
      [
        [suppressed, 'suppressed'],
        [hash, 'erased'],
      ].sort(),
    );
    for (const r of stops.filter((x) => payload(x).data.reason === 'erased')) expect(r.body).not.toContain(erased);
  });
});
