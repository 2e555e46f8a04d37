// Page rules and the tag's tracks are of the workflows add-on: through a real
// gateway and visitors service, on the real broker and Postgres. With the add-on, an identified
// visitor's matching page view and allowed track become events on events.inbound; once the operator
// removes it, within the site cache window, the gateway marks what it collects (workflows: false)
// and the visitors service counts the visit but sends no event; what was collected before the
// removal still fires; granted again, it fires again.
import { randomBytes } from 'node:crypto';
import { createAccount } from '@glimpse/auth';
import type { RunningGateway } from '@glimpse/gateway';
import { TOPICS } from '@glimpse/messaging';
import type { RunningVisitorsService } from '@glimpse/visitors';
import { closeTestDb, createTestApiKey, request, startTestGateway, testDb, waitFor } from '../../../test/support/stack';
import { startTestVisitorsService, visitorsApi } from '../../../test/support/visitors';
import { endOffsets, ofAccount, readTopic, type ReadMessage } from '../../../test/support/kafka-helpers';
import { api } from './management-helpers';

const TOKEN = randomBytes(32).toString('hex');
const SITE_CACHE_MS = 300;
const ORIGIN = 'https://shop.example.test';
const BROWSER = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';

let gateway: RunningGateway;
let visitors: RunningVisitorsService;
beforeAll(async () => {
  visitors = await startTestVisitorsService();
  gateway = await startTestGateway({
    OPERATOR_TOKEN: TOKEN,
    VISITORS_URL: visitors.url,
    SITE_CACHE_TTL_MS: String(SITE_CACHE_MS),
    SITE_CACHE_NEGATIVE_TTL_MS: String(SITE_CACHE_MS),
  });
});
afterAll(async () => {
  await gateway?.stop();
  await visitors?.stop();
  await closeTestDb();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
let counter = 0;
const newId = (prefix: string) => `${prefix}_${Date.now().toString(36)}${(counter++).toString(36).padStart(4, '0')}`;

const operator = (method: 'PUT' | 'DELETE', accountId: string) =>
  request(`${gateway.url}/operator/accounts/${accountId}/addons/workflows`, { method, headers: { authorization: `Bearer ${TOKEN}` } });

/** One new visitor's visit: it identifies, views /pricing (the rule's pattern) and tracks signup (allowed); answers its visitor id. */
async function visit(siteKey: string, email: string): Promise<string> {
  const res = await request(`${gateway.url}/collect`, {
    method: 'POST',
    headers: { 'content-type': 'text/plain;charset=UTF-8', 'user-agent': BROWSER, origin: ORIGIN },
    body: JSON.stringify({
      site: siteKey,
      events: [
        { type: 'identify', id: newId('id'), email },
        { type: 'pageview', id: newId('pv'), url: `${ORIGIN}/pricing`, path: '/pricing', title: 'Pricing' },
        { type: 'track', id: newId('tr'), event: 'signup', properties: { plan: 'pro' } },
      ],
    }),
  });
  expect([res.status, res.body.accepted]).toEqual([200, 3]);
  return res.body.vid as string;
}

/** Waits until the visitors service has applied the visitor's page view (its sends follow in the same chunk). */
async function applied(accountId: string, vid: string): Promise<void> {
  await waitFor(async () => (await visitorsApi(visitors.url, accountId, `/internal/visitors/${vid}/details`)).body?.visitor?.page_views === 1, {
    what: `the page view of ${vid}`,
  });
}

const eventsOf = (read: ReadMessage[], email: string) =>
  read
    .filter((m) => m.json?.email === email)
    .map((m) => m.json.event as string)
    .sort();

it('without the add-on, page rule matches and tracks of the tag become no events; visits collected before the removal still do; granted again, they do again', async () => {
  const { id: accountId } = await createAccount(testDb('identity'), 'operator collect test');
  const { key } = await createTestApiKey(accountId, ['account:manage']);
  const manage = api(gateway.url, key);
  const site = await manage.post('/account/sites', { name: 'Shop', origins: [ORIGIN], track_events: ['signup'] });
  expect(site.status).toBe(201);
  const rule = await manage.post('/account/page-rules', { pattern: '/pricing*', event: 'viewed_pricing' });
  expect(rule.status).toBe(201);
  const tag = randomBytes(4).toString('hex');
  const email = (n: string) => `${n}.${tag}@example.com`;
  const from = await endOffsets(TOPICS.eventsInbound);
  const collectedFrom = await endOffsets(TOPICS.visitorsCollected);

  // Collected with the add-on, then removed at once (the visitors service may apply it before or after).
  const before = await visit(site.body.key, email('before'));
  expect((await operator('DELETE', accountId)).status).toBe(200);
  await sleep(SITE_CACHE_MS + 100);
  const without = await visit(site.body.key, email('without'));
  await Promise.all([applied(accountId, before), applied(accountId, without)]);

  expect((await operator('PUT', accountId)).status).toBe(200);
  await sleep(SITE_CACHE_MS + 100);
  const again = await visit(site.body.key, email('again'));
  await applied(accountId, again);

  const complete = (ms: ReadMessage[]) => ['before', 'again'].every((n) => eventsOf(ofAccount(ms, accountId), email(n)).length >= 2);
  const read = ofAccount(await readTopic(TOPICS.eventsInbound, { from, to: await endOffsets(TOPICS.eventsInbound), until: complete }), accountId);
  expect(eventsOf(read, email('before'))).toEqual(['signup', 'viewed_pricing']);
  expect(eventsOf(read, email('without'))).toEqual([]);
  expect(eventsOf(read, email('again'))).toEqual(['signup', 'viewed_pricing']);

  // The mark is on what the gateway collected while the account lacked the add-on, and only there.
  const collected = (await readTopic(TOPICS.visitorsCollected, { from: collectedFrom, to: await endOffsets(TOPICS.visitorsCollected) })).filter(
    (m) => m.json?.accountId === accountId,
  );
  const marks = (vid: string) => collected.filter((m) => m.json.visitorId === vid).map((m) => m.json.workflows);
  expect(marks(before)).toEqual([undefined, undefined, undefined]);
  expect(marks(without)).toEqual([false, false, false]);
  expect(marks(again)).toEqual([undefined, undefined, undefined]);
  // The visit itself counts: the visitor is identified and its page view is in its profile.
  expect((await visitorsApi(visitors.url, accountId, `/internal/visitors/${without}/details`)).body.visitor).toMatchObject({ page_views: 1 });
});
