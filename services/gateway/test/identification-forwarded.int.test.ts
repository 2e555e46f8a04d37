// The identification routes answered by the visitors service behind the gateway: a link token
// followed on the site identifies the visitor (email_link, confidence 1), seen in the identified
// filter, the visitor's record and the site's stats; page rules are created, listed and deleted.
import type { RunningVisitorsService } from '@glimpse/visitors';
import { closeTestDb, request, startTestGateway, waitFor } from '../../../test/support/stack';
import { startTestVisitorsService } from '../../../test/support/visitors';
import { api, createManager } from './management-helpers';

let visitors: RunningVisitorsService;
let gateway: Awaited<ReturnType<typeof startTestGateway>>;
beforeAll(async () => {
  visitors = await startTestVisitorsService();
  gateway = await startTestGateway({ VISITORS_URL: visitors.url });
});
afterAll(async () => {
  await gateway?.stop();
  await visitors?.stop();
  await closeTestDb();
});

const ORIGIN = 'https://forwarded.example.test';
let n = 0;
const id = (prefix: string) => `${prefix}_${Date.now().toString(36)}${(n++).toString(36).padStart(4, '0')}`;

it("when a visitor follows an email link, then it is listed as identified, its record has the email_link in its history, and the site's stats count it", async () => {
  const manager = await createManager();
  const client = api(gateway.url, manager.key);
  const site = (await client.post('/account/sites', { name: 'Forwarded', origins: [ORIGIN] })).body as { id: string; key: string };
  const { token } = (await client.post('/account/link-tokens', { email: 'follower@example.com' })).body as { token: string };
  const sent = await request(`${gateway.url}/collect`, {
    method: 'POST',
    headers: { 'content-type': 'text/plain', origin: ORIGIN, 'user-agent': 'Mozilla/5.0 (Macintosh) Safari/605.1.15', 'x-forwarded-for': '192.0.2.77' },
    body: JSON.stringify({
      site: site.key,
      events: [
        { type: 'pageview', id: id('pv'), path: '/offer', title: 'Offer' },
        { type: 'link', id: id('ln'), token, path: '/offer' },
      ],
    }),
  });
  expect(sent.status).toBe(200);
  const vid = sent.body.vid as string;

  const identified = await waitFor(
    async () => {
      const r = await client.get('/account/visitors?identified=true');
      return r.body.items?.length > 0 ? r : undefined;
    },
    { what: 'the visitor identified' },
  );
  expect(identified.body.items).toEqual([
    expect.objectContaining({ id: vid, email: 'follower@example.com', identifiedBy: expect.objectContaining({ method: 'email_link', confidence: 1 }) }),
  ]);
  expect((await client.get('/account/visitors?identified=false')).body.items).toEqual([]);

  const record = await client.get(`/account/visitors/${vid}`);
  expect(record.status).toBe(200);
  expect(record.body).toMatchObject({
    id: vid,
    email: 'follower@example.com',
    identityHistory: [expect.objectContaining({ email: 'follower@example.com', method: 'email_link', confidence: 1, sourcePath: '/offer' })],
  });
  expect((await client.get('/account/visitors/not-a-visitor')).status).toBe(404);
  expect((await api(gateway.url, (await createManager()).key).get(`/account/visitors/${vid}`)).status).toBe(404);

  const stats = await client.get(`/account/sites/${site.id}/stats`);
  expect(stats.status).toBe(200);
  expect(stats.body).toEqual({ page_views: 1, visitors: 1, identified_visitors: 1, bots: 0 });
});

it('when page rules are created, listed and deleted, then the account sees exactly its own', async () => {
  const client = api(gateway.url, (await createManager()).key);
  const created = await client.post('/account/page-rules', { pattern: '/pricing*', event: 'viewed_pricing' });
  expect(created.status).toBe(201);
  expect(created.body).toMatchObject({ id: expect.any(String), pattern: '/pricing*', event: 'viewed_pricing' });
  expect((await client.get('/account/page-rules')).body.items).toEqual([created.body]);
  const other = api(gateway.url, (await createManager()).key);
  expect((await other.get('/account/page-rules')).body.items).toEqual([]);
  expect((await other.del(`/account/page-rules/${created.body.id}`)).status).toBe(404);
  expect((await client.post('/account/page-rules', { pattern: 'pricing', event: 'x' })).status).toBe(400);
  expect((await client.del(`/account/page-rules/${created.body.id}`)).status).toBe(204);
  expect((await client.get('/account/page-rules')).body.items).toEqual([]);
});
