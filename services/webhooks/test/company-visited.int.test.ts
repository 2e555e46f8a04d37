// company.visited on the real stack: companies' first visits produced straight onto
// visitors.companies (as the visitors service publishes them), the webhooks service asking a real
// enrichment service for the companies' firmographics (one lookup per chunk) and POSTing signed
// deliveries to a real local receiver. A subscribed endpoint gets each visit once, with the
// firmographics or nulls; a visit published again (same eventId) is not delivered again; enrichment
// unreachable holds the chunk back until it answers; a message that is not a visit goes to webhooks.dlq.
import { randomBytes, randomUUID } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { DEV_INTERNAL_TOKEN } from '@glimpse/config';
import { importCompanies, type RunningEnrichmentService } from '@glimpse/enrichment';
import { INTERNAL_HEADERS } from '@glimpse/http';
import { TOPICS, companyVisitedSchema, type CompanyVisitedMessage } from '@glimpse/messaging';
import type { RunningWebhooksService } from '@glimpse/webhooks';
import { closeTestDb, request, startTestEnrichmentService, testDb, waitFor } from '../../../test/support/stack';
import { endOffsets, produceRaw, readTopic } from '../../../test/support/kafka-helpers';
import { createTcpProxy, type TcpProxy } from '../../../test/support/tcp-proxy';
import { startReceiver, startTestWebhooksService, type Receiver, type ReceivedRequest } from '../../../test/support/webhooks';

let enrichment: RunningEnrichmentService;
// Between the webhooks service and enrichment, so a test can take enrichment away.
let proxy: TcpProxy;
let webhooks: RunningWebhooksService;
let receiver: Receiver;
const accounts: string[] = [];
const domains: string[] = [];

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
  await testDb('enrichment').company.deleteMany({ where: { domain: { in: domains } } });
  await closeTestDb();
});

/** An endpoint of the account (through the internal API, as the gateway subscribes it). */
async function subscribe(accountId: string, events: string[]): Promise<{ id: string; secret: string }> {
  const res = await request(`${webhooks.url}/internal/webhooks`, {
    method: 'POST',
    headers: { [INTERNAL_HEADERS.token]: DEV_INTERNAL_TOKEN, [INTERNAL_HEADERS.account]: accountId, 'content-type': 'application/json' },
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

function uniqueDomain(tag: string): string {
  const domain = `${tag}-${randomBytes(5).toString('hex')}.example`;
  domains.push(domain);
  return domain;
}

/** A company enrichment knows (imported as `glimpse import companies` does). */
async function knownCompany(domain: string): Promise<void> {
  const line = {
    domain,
    name: 'Analytical Engines Ltd',
    industry: 'Computing',
    size: '51-200',
    employees: 120,
    founded: 1837,
    location: { country: 'GB', region: 'England', city: 'London' },
    profile_url: `https://pronet.example/company/${domain}`,
  };
  const report = await importCompanies(
    (async function* () {
      yield JSON.stringify(line);
    })(),
    { db: testDb('enrichment') },
  );
  expect(report).toMatchObject({ imported: 1 });
}

function visit(accountId: string, domain: string | null, fields: Partial<CompanyVisitedMessage> = {}): CompanyVisitedMessage {
  const at = new Date();
  return companyVisitedSchema.parse({
    eventId: randomUUID(),
    accountId,
    siteId: randomUUID(),
    company: domain ?? 'acme research',
    name: 'ENGINES-NET',
    domain,
    visitorId: randomBytes(12).toString('hex'),
    windowStart: new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate())).toISOString(),
    at: at.toISOString(),
    network: { name: 'ENGINES-NET', type: 'business', asn: 64500 },
    location: { country: 'GB', region: 'England', city: 'London', time_zone: 'Europe/London' },
    ...fields,
  });
}

const keyOf = (m: CompanyVisitedMessage) => `${m.accountId}:${m.siteId}:${m.company}`;
const publish = (...messages: CompanyVisitedMessage[]) =>
  produceRaw(
    TOPICS.visitorsCompanies,
    messages.map((m) => ({ key: keyOf(m), value: JSON.stringify(m) })),
  );

const requestsOf = (eventId: string): ReceivedRequest[] => receiver.requests.filter((r) => r.headers['webhook-id'] === eventId);

async function delivered(eventId: string): Promise<ReceivedRequest> {
  return waitFor(async () => requestsOf(eventId).find((r) => r.answered === 'ok'), { what: `company visit ${eventId} delivered`, timeoutMs: 45_000 });
}

const NO_FIRMOGRAPHICS = {
  industry: null,
  size: null,
  employees: null,
  founded: null,
  location: { country: null, region: null, city: null },
  pronet_url: null,
};

const expectedBody = (m: CompanyVisitedMessage, company: Record<string, unknown>) => ({
  type: 'company.visited',
  timestamp: m.at,
  data: {
    site_id: m.siteId,
    visitor_id: m.visitorId,
    company: { key: m.company, domain: m.domain, ...company },
    network: m.network,
    location: m.location,
    window_start: m.windowStart,
  },
});

describe('company.visited webhooks', () => {
  it("when a company enrichment knows visits a site, then the subscribed endpoint receives it once, signed, with the company's firmographics, and an endpoint not subscribed receives nothing", async () => {
    receiver.script([], 'ok');
    const accountId = newAccount();
    const domain = uniqueDomain('engines');
    await knownCompany(domain);
    const subscribed = await subscribe(accountId, ['visitor.identified', 'company.visited']);
    const other = await subscribe(accountId, ['visitor.identified']);
    const message = visit(accountId, domain);

    await publish(message);

    const received = await delivered(message.eventId);
    // Standard Webhooks with the endpoint's secret; webhook-id is the visit's eventId.
    expect(new Webhook(subscribed.secret).verify(received.body, received.headers)).toEqual(
      expectedBody(message, {
        name: 'Analytical Engines Ltd',
        industry: 'Computing',
        size: '51-200',
        employees: 120,
        founded: 1837,
        location: { country: 'GB', region: 'England', city: 'London' },
        pronet_url: `https://pronet.example/company/${domain}`,
      }),
    );
    // Both endpoints' deliveries are scheduled by one statement: the other's absence is final.
    expect(await testDb('webhooks').webhookDelivery.count({ where: { endpointId: other.id } })).toBe(0);
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
    expect(rows).toEqual([{ effectId: message.eventId, type: 'company.visited', status: 'delivered' }]);
    expect(requestsOf(message.eventId)).toHaveLength(1);
  });

  it('when the same visit is published again, then it is scheduled and sent once; a company without a record comes with null firmographics and the network name', async () => {
    receiver.script([], 'ok');
    const accountId = newAccount();
    const { id: endpointId } = await subscribe(accountId, ['company.visited']);
    const message = visit(accountId, uniqueDomain('unknown'));
    // Same key (company and site), so the marker is handled after both copies.
    const marker = visit(accountId, message.domain, { siteId: message.siteId });

    await publish(message);
    await delivered(message.eventId);
    // Published again after it was delivered (the visitors service publishes at least once).
    await publish(message, marker);

    await delivered(marker.eventId);
    const [received] = requestsOf(message.eventId);
    expect(JSON.parse(received!.body)).toEqual(expectedBody(message, { name: 'ENGINES-NET', ...NO_FIRMOGRAPHICS }));
    expect(requestsOf(message.eventId)).toHaveLength(1);
    expect(await testDb('webhooks').webhookDelivery.count({ where: { endpointId, effectId: message.eventId } })).toBe(1);
  });

  it('when a company known by name only visits, then it is delivered with its key and name and no firmographics', async () => {
    receiver.script([], 'ok');
    const accountId = newAccount();
    await subscribe(accountId, ['company.visited']);
    const message = visit(accountId, null, { company: 'acme research', name: 'Acme Research', network: null, location: null });

    await publish(message);

    const received = await delivered(message.eventId);
    expect(JSON.parse(received.body)).toEqual(expectedBody(message, { name: 'Acme Research', ...NO_FIRMOGRAPHICS }));
  });

  it('when enrichment cannot be reached, then the visit is held back (not scheduled, not dead-lettered) and delivered with its firmographics once it answers', async () => {
    receiver.script([], 'ok');
    const accountId = newAccount();
    const domain = uniqueDomain('held');
    await knownCompany(domain);
    const { id: endpointId } = await subscribe(accountId, ['company.visited']);
    const message = visit(accountId, domain);
    await proxy.close();

    await publish(message);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(await testDb('webhooks').webhookDelivery.count({ where: { endpointId } })).toBe(0);
    await proxy.open();

    const received = await delivered(message.eventId);
    expect(JSON.parse(received.body).data.company).toMatchObject({ key: domain, name: 'Analytical Engines Ltd', industry: 'Computing', employees: 120 });
    expect(requestsOf(message.eventId)).toHaveLength(1);
  });

  it('when a message on visitors.companies is not a visit, then it goes to webhooks.dlq with its source and reason, and the next visit of the key is delivered', async () => {
    receiver.script([], 'ok');
    const accountId = newAccount();
    await subscribe(accountId, ['company.visited']);
    const next = visit(accountId, uniqueDomain('after-poison'));
    const key = keyOf(next);
    const from = await endOffsets(TOPICS.webhooksDeadLetter);

    // One key, so one partition: the poison message comes before the valid visit.
    await produceRaw(TOPICS.visitorsCompanies, [{ key, value: JSON.stringify({ ...next, eventId: 'not-a-uuid' }) }]);
    await publish(next);

    await delivered(next.eventId);
    const [dead] = (await readTopic(TOPICS.webhooksDeadLetter, { from, until: (read) => read.some((m) => m.key === key) })).filter((m) => m.key === key);
    expect(dead!.headers).toMatchObject({ 'x-source-topic': TOPICS.visitorsCompanies, 'x-reason': expect.stringContaining('eventId') });
  });
});
