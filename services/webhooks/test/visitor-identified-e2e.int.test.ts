// visitor.identified end to end: an identify collected onto visitors.collected (as the gateway
// produces it), the visitors service linking the visitor and publishing visitors.identified, the
// webhooks service delivering it signed with the person's fields from enrichment.
import { Webhook } from 'standardwebhooks';
import { DEV_INTERNAL_TOKEN } from '@glimpse/config';
import { generatePerson, importPersons, normalizeRecord, toVisitorDetails, type RunningEnrichmentService } from '@glimpse/enrichment';
import { INTERNAL_HEADERS } from '@glimpse/http';
import type { RunningVisitorsService } from '@glimpse/visitors';
import type { RunningWebhooksService } from '@glimpse/webhooks';
import { closeTestDb, request, startTestEnrichmentService, testDb, waitFor } from '../../../test/support/stack';
import { startTestVisitorsService } from '../../../test/support/visitors';
import { startReceiver, startTestWebhooksService, type Receiver } from '../../../test/support/webhooks';
import { closeProducer, message, newSite, newVisitorId, produceCollected } from '../../visitors/test/collected-messages';

let enrichment: RunningEnrichmentService;
let visitors: RunningVisitorsService;
let webhooks: RunningWebhooksService;
let receiver: Receiver;
const accounts: string[] = [];

beforeAll(async () => {
  [receiver, enrichment, visitors] = await Promise.all([startReceiver(), startTestEnrichmentService(), startTestVisitorsService()]);
  webhooks = await startTestWebhooksService({ ENRICHMENT_URL: enrichment.url });
});

afterAll(async () => {
  await Promise.all([webhooks?.stop(), visitors?.stop()]);
  await enrichment?.stop();
  await receiver?.close();
  await closeProducer();
  // Once the services are stopped: a delete under a running dispatcher's claims can deadlock with them.
  await testDb('webhooks').webhookEndpoint.deleteMany({ where: { accountId: { in: accounts } } });
  await closeTestDb();
});

it("when a visitor identifies on the site, then the account's subscribed endpoint receives visitor.identified with the person's fields", async () => {
  const site = newSite();
  accounts.push(site.accountId);
  const person = generatePerson(0, Math.floor(Math.random() * 1e9));
  await importPersons(
    (async function* () {
      yield JSON.stringify(person);
    })(),
    { db: testDb('enrichment'), defaultPhoneRegion: 'US' },
  );
  const email = person.traits.work_email as string;
  const subscribed = await request(`${webhooks.url}/internal/webhooks`, {
    method: 'POST',
    headers: { [INTERNAL_HEADERS.token]: DEV_INTERNAL_TOKEN, [INTERNAL_HEADERS.account]: site.accountId, 'content-type': 'application/json' },
    body: JSON.stringify({ url: receiver.url, events: ['visitor.identified'] }),
  });
  expect(subscribed.status).toBe(201);
  const visitorId = newVisitorId();

  await produceCollected([
    message(site, visitorId, 'pageview', { url: 'https://site.example/signup', path: '/signup' }),
    message(site, visitorId, 'identify', { email, path: '/signup', verified: true }),
  ]);

  const received = await waitFor(
    async () => receiver.requests.find((r) => r.answered === 'ok' && (JSON.parse(r.body) as { data: { visitor_id: string } }).data.visitor_id === visitorId),
    { what: 'visitor.identified delivered', timeoutMs: 45_000 },
  );
  const body = new Webhook(subscribed.body.secret).verify(received.body, received.headers);
  expect(body).toEqual({
    type: 'visitor.identified',
    timestamp: expect.any(String),
    data: {
      visitor_id: visitorId,
      site_id: site.siteId,
      method: 'identify',
      confidence: 1,
      verified: true,
      email,
      details: toVisitorDetails(normalizeRecord(person)),
    },
  });
});
