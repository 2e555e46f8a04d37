// The sites API with the visitors service behind it: a site's traffic and the account's visitors
// (forwarded), and a deletion that removes the site's visitor data with the site.
import type { RunningVisitorsService } from '@glimpse/visitors';
import { closeTestDb, request, startTestGateway, testDb, waitFor } from '../../../test/support/stack';
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

const ORIGIN = 'https://traffic.example.test';
let n = 0;
const pageview = (path: string) => ({ type: 'pageview', id: `pv_${Date.now().toString(36)}${(n++).toString(36).padStart(4, '0')}`, path, title: path });

it("when a site has page views, then its traffic and the account's visitors show them; deleting the site deletes its visitors", async () => {
  const manager = await createManager();
  const client = api(gateway.url, manager.key);
  const site = (await client.post('/account/sites', { name: 'Traffic', origins: [ORIGIN] })).body as { id: string; key: string };
  const empty = await client.get(`/account/sites/${site.id}/traffic`);
  expect(empty.status).toBe(200);
  expect(empty.body.firstPageViewAt).toBeNull();
  expect(empty.body.hours).toHaveLength(24);

  const sent = await request(`${gateway.url}/collect`, {
    method: 'POST',
    headers: { 'content-type': 'text/plain', origin: ORIGIN, 'user-agent': 'Mozilla/5.0 (Macintosh) Safari/605.1.15' },
    body: JSON.stringify({ site: site.key, events: [pageview('/a'), pageview('/b')] }),
  });
  expect(sent.status).toBe(200);
  const traffic = await waitFor(
    async () => {
      const r = await client.get(`/account/sites/${site.id}/traffic`);
      return r.body.firstPageViewAt !== null ? r : undefined;
    },
    { what: 'the page views counted' },
  );
  // The hour they were received in: the last one, unless an hour began since (a run at 07:00 read the new, empty hour).
  const receivedHour = new Date(Math.floor(Date.parse(traffic.body.firstPageViewAt) / 3_600_000) * 3_600_000).toISOString();
  expect(traffic.body.hours.find((h: { hour: string }) => h.hour === receivedHour)).toMatchObject({ pageViews: 2, visitors: 1 });

  const list = await client.get('/account/visitors?limit=10');
  expect(list.status).toBe(200);
  expect(list.body.items).toEqual([expect.objectContaining({ id: sent.body.vid, siteId: site.id, pageViews: 2, lastPage: '/b' })]);

  expect((await client.del(`/account/sites/${site.id}`)).status).toBe(204);
  expect(await testDb('identity').site.count({ where: { id: site.id } })).toBe(0);
  expect((await client.get('/account/visitors')).body.items).toEqual([]);
  expect((await client.get(`/account/sites/${site.id}`)).status).toBe(404);
});
