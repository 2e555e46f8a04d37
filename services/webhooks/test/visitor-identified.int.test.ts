// visitor.identified on the real stack: identifications produced straight onto visitors.identified
// (as the visitors service publishes them), the webhooks service asking a real enrichment service
// for the person's fields and POSTing signed deliveries to a real local receiver. Subscribed
// endpoints get each identification once, retried after a failure; others get nothing; an erasure
// leaves neither the email nor the person's fields in the records; enrichment unreachable holds the
// message back until it answers.
import { randomBytes, randomUUID } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { DEV_INTERNAL_TOKEN } from '@glimpse/config';
import { generatePerson, importPersons, normalizeRecord, toVisitorDetails, type RunningEnrichmentService } from '@glimpse/enrichment';
import { INTERNAL_HEADERS } from '@glimpse/http';
import { TOPICS, createErasedEmail, visitorIdentifiedSchema, type VisitorIdentifiedMessage } from '@glimpse/messaging';
import type { RunningWebhooksService } from '@glimpse/webhooks';
import { closeTestDb, request, startTestEnrichmentService, testDb, uniqueEmail, waitFor } from '../../../test/support/stack';
import { produceRaw } from '../../../test/support/kafka-helpers';
import { createTcpProxy, type TcpProxy } from '../../../test/support/tcp-proxy';
import { startReceiver, startTestWebhooksService, type Receiver, type ReceivedRequest } from '../../../test/support/webhooks';

let enrichment: RunningEnrichmentService;
// Between the webhooks service and enrichment, so a test can take enrichment away.
let proxy: TcpProxy;
let webhooks: RunningWebhooksService;
let receiver: Receiver;
const accounts: string[] = [];

beforeAll(async () => {
  [receiver, enrichment] = await Promise.all([startReceiver(), startTestEnrichmentService()]);
  proxy = await createTcpProxy({ host: '127.0.0.1', port: enrichment.port });
  await proxy.open();
  webhooks = await startTestWebhooksService({ ENRICHMENT_URL: `http://127.0.0.1:${proxy.port}` });
});

afterAll(async () => {
  await webhooks?.stop();
  await proxy?.close();
  await enrichment?.stop();
  await receiver?.close();
  // Once the services are stopped: a delete under a running dispatcher's claims can deadlock with them.
  await testDb('webhooks').webhookEndpoint.deleteMany({ where: { accountId: { in: accounts } } });
  await closeTestDb();
});

const internal = (accountId: string) => ({
  [INTERNAL_HEADERS.token]: DEV_INTERNAL_TOKEN,
  [INTERNAL_HEADERS.account]: accountId,
  'content-type': 'application/json',
});

/** An endpoint of the account (through the internal API, as the gateway subscribes it). */
async function subscribe(accountId: string, events: string[]): Promise<{ id: string; secret: string }> {
  const res = await request(`${webhooks.url}/internal/webhooks`, {
    method: 'POST',
    headers: internal(accountId),
    body: JSON.stringify({ url: receiver.url, events }),
  });
  expect(res.status).toBe(201);
  return { id: res.body.id, secret: res.body.secret };
}

function newAccount(): string {
  const accountId = randomUUID();
  accounts.push(accountId);
  return accountId;
}

function identification(accountId: string, email: string, fields: Partial<VisitorIdentifiedMessage> = {}): VisitorIdentifiedMessage {
  return visitorIdentifiedSchema.parse({
    eventId: randomUUID(),
    accountId,
    siteId: randomUUID(),
    visitorId: randomBytes(12).toString('hex'),
    method: 'form',
    confidence: 0.9,
    email,
    at: new Date().toISOString(),
    ...fields,
  });
}

const publish = (...messages: VisitorIdentifiedMessage[]) =>
  produceRaw(
    TOPICS.visitorsIdentified,
    messages.map((m) => ({ key: `${m.accountId}:${m.visitorId}`, value: JSON.stringify(m) })),
  );

/** A person enrichment knows, and the seven fields it answers for them. */
async function knownPerson(): Promise<{ email: string; details: Record<string, string> }> {
  const person = generatePerson(0, Math.floor(Math.random() * 1e9));
  await importPersons(
    (async function* () {
      yield JSON.stringify(person);
    })(),
    { db: testDb('enrichment'), defaultPhoneRegion: 'US' },
  );
  return { email: person.traits.work_email as string, details: toVisitorDetails(normalizeRecord(person)) as Record<string, string> };
}

const requestsOf = (eventId: string): ReceivedRequest[] => receiver.requests.filter((r) => r.headers['webhook-id'] === eventId);

async function delivered(eventId: string): Promise<ReceivedRequest> {
  return waitFor(async () => requestsOf(eventId).find((r) => r.answered === 'ok'), { what: `identification ${eventId} delivered`, timeoutMs: 45_000 });
}

const expectedBody = (m: VisitorIdentifiedMessage, details: Record<string, string>) => ({
  type: 'visitor.identified',
  timestamp: m.at,
  data: {
    visitor_id: m.visitorId,
    site_id: m.siteId,
    method: m.method,
    confidence: m.confidence,
    verified: m.verified ?? m.method === 'email_link',
    email: m.email,
    details,
  },
});

describe('visitor.identified webhooks', () => {
  it("when a visitor is identified as a person enrichment knows, then the subscribed endpoint receives it signed with the person's fields, and an endpoint not subscribed receives nothing", async () => {
    receiver.script([], 'ok');
    const accountId = newAccount();
    const { email, details } = await knownPerson();
    const subscribed = await subscribe(accountId, ['enrollment.started', 'visitor.identified']);
    const other = await subscribe(accountId, ['enrollment.started', 'enrollment.stopped']);
    const message = identification(accountId, email, { method: 'email_link', confidence: 1 });

    await publish(message);

    const received = await delivered(message.eventId);
    // Standard Webhooks with the endpoint's secret; webhook-id is the identification's eventId.
    expect(new Webhook(subscribed.secret).verify(received.body, received.headers)).toEqual(expectedBody(message, details));
    expect(Object.keys(details).length).toBeGreaterThan(0);
    // Both endpoints' deliveries are scheduled by one statement: the other's absence is final.
    expect(await testDb('webhooks').webhookDelivery.count({ where: { endpointId: other.id } })).toBe(0);
    // The attempt is recorded just after the receiver answers.
    const rows = await waitFor(
      async () => {
        const found = await testDb('webhooks').webhookDelivery.findMany({
          where: { endpointId: subscribed.id },
          select: { effectId: true, type: true, status: true },
        });
        return found.every((r) => r.status !== 'pending') ? found : undefined;
      },
      { what: 'the attempt recorded' },
    );
    expect(rows).toEqual([{ effectId: message.eventId, type: 'visitor.identified', status: 'delivered' }]);
  });

  it('when the same identification comes twice, then it is scheduled and sent once, with empty details for an email enrichment does not know', async () => {
    receiver.script([], 'ok');
    const accountId = newAccount();
    const { id: endpointId } = await subscribe(accountId, ['visitor.identified']);
    const message = identification(accountId, uniqueEmail('unknown'));
    // Same key, so the marker is handled after both copies.
    const marker = identification(accountId, uniqueEmail('marker'), { visitorId: message.visitorId });

    await publish(message, message, marker);

    await delivered(marker.eventId);
    const received = await delivered(message.eventId);
    expect(JSON.parse(received.body)).toEqual(expectedBody(message, {}));
    expect(requestsOf(message.eventId)).toHaveLength(1);
    expect(await testDb('webhooks').webhookDelivery.count({ where: { endpointId, effectId: message.eventId } })).toBe(1);
  });

  it('when the endpoint answers 500, then the identification is sent again and delivered, signed the same way', async () => {
    const accountId = newAccount();
    const { id: endpointId, secret } = await subscribe(accountId, ['visitor.identified']);
    const message = identification(accountId, uniqueEmail('retried'), { method: 'identify', confidence: 1 });
    receiver.script(['fail'], 'ok');

    await publish(message);

    await delivered(message.eventId);
    const attempts = requestsOf(message.eventId);
    expect(attempts.map((r) => r.answered)).toEqual(['fail', 'ok']);
    for (const r of attempts) expect(new Webhook(secret).verify(r.body, r.headers)).toEqual(expectedBody(message, {}));
    const delivery = await waitFor(
      () => testDb('webhooks').webhookDelivery.findFirst({ where: { endpointId, status: 'delivered' }, include: { attemptRows: { orderBy: { at: 'asc' } } } }),
      { what: 'the success recorded' },
    );
    expect(delivery.attemptRows.map((a) => [a.succeeded, a.responseStatus])).toEqual([
      [false, 500],
      [true, 204],
    ]);
  });

  it("when the person is erased, then their identified deliveries keep neither the email nor the person's fields", async () => {
    receiver.script([], 'ok');
    const accountId = newAccount();
    const { email, details } = await knownPerson();
    const { id: endpointId } = await subscribe(accountId, ['visitor.identified']);
    const message = identification(accountId, email);
    await publish(message);
    await delivered(message.eventId);

    const erase = (body: unknown) =>
      request(`${webhooks.url}/internal/persons/erase`, { method: 'POST', headers: internal(accountId), body: JSON.stringify(body) });
    // The stand-in comes from the playbook service (it holds the key), through the gateway.
    const replacement = createErasedEmail(`visitor-identified-test-secret-${randomUUID()}`)(accountId, email);
    for (const bad of [{ email }, { email, replacement: 'sha256:abc' }, { email, replacement: email }]) {
      expect(await erase(bad)).toMatchObject({ status: 400, body: { error: 'invalid_request', message: expect.stringContaining('replacement') } });
    }

    expect(await erase({ email, replacement })).toMatchObject({ status: 200, body: { hashedDeliveries: 1 } });
    const [stored] = await testDb('webhooks').webhookDelivery.findMany({ where: { endpointId } });
    expect(JSON.parse(stored!.payload)).toEqual(expectedBody({ ...message, email: replacement }, {}));
    expect(await erase({ email, replacement })).toMatchObject({ status: 200, body: { hashedDeliveries: 0 } });
    for (const value of [email, ...Object.values(details)]) expect(stored!.payload).not.toContain(value);
  });

  it('when enrichment cannot be reached, then the identification is held back (not committed) and delivered once it answers', async () => {
    receiver.script([], 'ok');
    const accountId = newAccount();
    const { email, details } = await knownPerson();
    const { id: endpointId } = await subscribe(accountId, ['visitor.identified']);
    const message = identification(accountId, email);
    await proxy.close();

    await publish(message);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(await testDb('webhooks').webhookDelivery.count({ where: { endpointId } })).toBe(0);
    await proxy.open();

    const received = await delivered(message.eventId);
    expect(JSON.parse(received.body)).toEqual(expectedBody(message, details));
  });
});
