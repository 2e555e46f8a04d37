// The tag's settings and what it may send, through the gateway over HTTP with real Postgres, Redis
// and Kafka (and the visitors service where a visitor is read back): the per-site script
// /s/<key>.js (settings in it, a change through the API seen within the site cache's TTL, an
// unknown key 404), URLs trimmed before Kafka whoever sends them, and a consent grant that credits
// only the granting browser's views, not everyone's behind the same address and browser.
import type { RunningVisitorsService } from '@glimpse/visitors';
import { TOPICS } from '@glimpse/messaging';
import { closeTestDb, request, startTestGateway, waitFor, type HttpResult } from '../../../test/support/stack';
import { endOffsets, readTopic, type ReadMessage } from '../../../test/support/kafka-helpers';
import { startTestVisitorsService } from '../../../test/support/visitors';
import { generateSiteKey } from '../src/domain/site-input';
import { api, createManager } from './management-helpers';

let visitors: RunningVisitorsService;
let gateway: Awaited<ReturnType<typeof startTestGateway>>;
beforeAll(async () => {
  visitors = await startTestVisitorsService();
  // A short site cache, so a settings change shows within the test.
  gateway = await startTestGateway({ VISITORS_URL: visitors.url, SITE_CACHE_TTL_MS: '300' });
});
afterAll(async () => {
  await gateway?.stop();
  await visitors?.stop();
  await closeTestDb();
});

const ORIGIN = 'https://settings.example.test';
const BROWSER = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';
let counter = 0;
const newId = (prefix: string) => `${prefix}_${Date.now().toString(36)}${(counter++).toString(36).padStart(4, '0')}`;
const newAddress = () => `198.18.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250) + 1}`;

async function createSite(settings: Record<string, unknown> = {}) {
  const manager = await createManager();
  const client = api(gateway.url, manager.key);
  const res = await client.post('/account/sites', { name: 'Settings', origins: [ORIGIN], ...settings });
  expect(res.status).toBe(201);
  return { id: res.body.id as string, key: res.body.key as string, client };
}

const script = (key: string, headers: Record<string, string> = {}) => fetch(`${gateway.url}/s/${key}.js`, { headers });
/** The settings the script passes to the tag: the JSON argument of its last call. */
const settingsIn = (body: string) => JSON.parse(body.slice(body.lastIndexOf('({"site"') + 1, -2)) as Record<string, unknown>;

function collect(body: unknown, { address, cookie }: { address: string; cookie?: string }): Promise<HttpResult> {
  return request(`${gateway.url}/collect`, {
    method: 'POST',
    headers: { 'content-type': 'text/plain', origin: ORIGIN, 'user-agent': BROWSER, 'x-forwarded-for': address, ...(cookie ? { cookie } : {}) },
    body: JSON.stringify(body),
  });
}

async function collectedOf(siteId: string, act: () => Promise<unknown>): Promise<ReadMessage[]> {
  const from = await endOffsets(TOPICS.visitorsCollected);
  await act();
  const to = await endOffsets(TOPICS.visitorsCollected);
  return (await readTopic(TOPICS.visitorsCollected, { from, to })).filter((m) => m.json?.siteId === siteId);
}

describe('the per-site script', () => {
  it("when a site's script is fetched, then it is the tag with the site's settings, cacheable five minutes, loadable from anywhere, with a strong ETag", async () => {
    const site = await createSite({ consent: 'required', capture_forms: true, query_keys: ['page'] });
    const res = await script(site.key);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/javascript; charset=utf-8');
    expect(res.headers.get('cache-control')).toBe('public, max-age=300');
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(res.headers.get('cross-origin-resource-policy')).toBe('cross-origin');
    const etag = res.headers.get('etag')!;
    expect(etag).toMatch(/^"[A-Za-z0-9_-]{43}"$/);
    const body = await res.text();
    expect(body).toMatch(/^!function\(\w+\)\{/);
    expect(settingsIn(body)).toEqual({ site: site.key, consent: 'required', forms: true, gpc: true, query: ['page'] });
    // Nothing else of the site: no origins, no account.
    expect(body).not.toContain(site.id);
    expect(body).not.toContain('settings.example.test');
    // (Its 304 on If-None-Match is tag-route.test.ts's: fetch adds Cache-Control: no-cache to a conditional request.)
  });

  it('when a setting changes through the API, then the script says so once the site cache has let go of the old one, under a new ETag', async () => {
    const site = await createSite();
    const before = await script(site.key);
    expect(settingsIn(await before.text())).toMatchObject({ consent: 'implied', forms: false, query: [] });
    expect((await site.client.patch(`/account/sites/${site.id}`, { consent: 'required', query_keys: ['q'] })).status).toBe(200);
    const after = await waitFor(
      async () => {
        const res = await script(site.key);
        const body = await res.text();
        return settingsIn(body).consent === 'required' && { res, body };
      },
      { what: 'the script to carry the new settings', timeoutMs: 10_000 },
    );
    expect(settingsIn(after.body)).toMatchObject({ consent: 'required', query: ['q'] });
    expect(after.res.headers.get('etag')).not.toBe(before.headers.get('etag'));
  });

  it('when the key names no site or is no key, then 404 and no script', async () => {
    for (const key of [generateSiteKey(), 'not-a-key']) {
      const res = await script(key);
      expect(res.status).toBe(404);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      expect(await res.json()).toMatchObject({ error: 'not_found' });
    }
  });
});

describe('URLs before Kafka', () => {
  it('when a hand-typed /collect sends full URLs, then Kafka gets the path, the UTM and allowed query keys, never a fragment, and the referrer without its query', async () => {
    const site = await createSite({ query_keys: ['page'] });
    const view = {
      type: 'pageview',
      id: newId('pv'),
      url: `${ORIGIN}/reset?token=s3cr3t-reset&utm_source=news&page=2#access_token=oauth-secret`,
      path: '/reset?token=s3cr3t-reset#access_token=oauth-secret',
      title: 'Reset',
      referrer: 'https://mail.example.test/inbox?message=ann%40example.com#m1',
    };
    let res!: HttpResult;
    const messages = await collectedOf(site.id, async () => (res = await collect({ site: site.key, events: [view] }, { address: newAddress() })));
    expect(res.status).toBe(200);
    expect(messages).toHaveLength(1);
    expect(messages[0]!.json).toMatchObject({
      type: 'pageview',
      url: `${ORIGIN}/reset?utm_source=news&page=2`,
      path: '/reset',
      referrer: 'https://mail.example.test/inbox',
    });
    expect(messages[0]!.value).not.toMatch(/s3cr3t-reset|oauth-secret|ann%40example|message=/);
  });
});

describe('a consent grant', () => {
  type Visitor = { id: string; pageViews: number; lastPage: string | null };
  const visitorsOf = async (site: { client: ReturnType<typeof api> }) => (await site.client.get('/account/visitors?limit=50')).body.items as Visitor[];

  it("when two browsers behind one address and user agent view a consent-required site and one grants, then only the granting browser's views join its new visitor; the other's stay in the day's cookieless profile", async () => {
    const site = await createSite({ consent: 'required' });
    const address = newAddress();
    const pending = (path: string) => ({ type: 'pageview', id: newId('pv'), url: `${ORIGIN}${path}`, path, title: path });
    const [mine, theirs1, theirs2] = [pending('/mine'), pending('/theirs-1'), pending('/theirs-2')];
    // Browser A, then browser B (the same address and user agent: one cookieless id for both).
    for (const view of [mine, theirs1, theirs2]) expect((await collect({ site: site.key, consent: 'pending', events: [view] }, { address })).status).toBe(200);
    // Browser A grants, naming the view it sent while pending, then views one more page.
    const grant = { type: 'consent', id: newId('cs'), state: 'granted', views: [{ id: mine.id, path: mine.path, at: new Date().toISOString() }] };
    const granted = await collect({ site: site.key, consent: 'granted', events: [grant, pending('/mine-after')] }, { address });
    expect(granted.status).toBe(200);
    const vid = granted.body.vid as string;
    expect(vid).toMatch(/^[0-9a-f]{24}$/);

    const seen = await waitFor(
      async () => {
        const items = await visitorsOf(site);
        const visitor = items.find((v) => v.id === vid);
        const shared = items.find((v) => v.id !== vid);
        // (The two visitors' messages are on different partitions: each is read in its own time.)
        return visitor?.pageViews === 2 && shared?.pageViews === 3 && items;
      },
      { what: "the new visitor with the granting browser's two page views, and the cookieless profile with all three", timeoutMs: 20_000 },
    );
    expect(seen).toHaveLength(2);
    expect(seen.find((v) => v.id === vid)).toMatchObject({ pageViews: 2, lastPage: '/mine-after' });
    // The shared cookieless profile keeps every view of the day, the other browser's included.
    expect(seen.find((v) => v.id !== vid)).toMatchObject({ pageViews: 3, lastPage: '/theirs-2' });
  });
});
