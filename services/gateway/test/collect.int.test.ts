// POST /collect through the gateway over HTTP with real Postgres (sites), Redis (rate limit) and
// Kafka (visitors.collected, read back with a consumer): the site key and its origins, CORS, the
// body's rules, the visitor id and its cookie, bots, dropped track names, and Kafka down.
import { TOPICS } from '@glimpse/messaging';
import { closeTestDb, request, startTestGateway, type HttpResult } from '../../../test/support/stack';
import { endOffsets, readTopic, type ReadMessage } from '../../../test/support/kafka-helpers';
import { api, createManager } from './management-helpers';

type Gateway = Awaited<ReturnType<typeof startTestGateway>>;
let gateway: Gateway;
beforeAll(async () => {
  gateway = await startTestGateway();
});
afterAll(async () => {
  await gateway?.stop();
  await closeTestDb();
});

const ORIGIN = 'https://shop.example.test';
const BROWSER = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';
let counter = 0;
const newId = (prefix: string) => `${prefix}_${Date.now().toString(36)}${(counter++).toString(36).padStart(4, '0')}`;

interface Site {
  id: string;
  key: string;
  accountId: string;
}

async function createSite(url = gateway.url, trackEvents: string[] = ['signup']): Promise<Site> {
  const manager = await createManager();
  const res = await api(url, manager.key).post('/account/sites', { name: 'Shop', origins: [ORIGIN, 'http://localhost:5173'], track_events: trackEvents });
  expect(res.status).toBe(201);
  return { id: res.body.id, key: res.body.key, accountId: manager.accountId };
}

function collect(
  body: unknown,
  {
    origin = ORIGIN,
    userAgent = BROWSER,
    cookie,
    contentType = 'text/plain;charset=UTF-8',
    headers = {},
    url = gateway.url,
  }: { origin?: string | null; userAgent?: string; cookie?: string; contentType?: string; headers?: Record<string, string>; url?: string } = {},
): Promise<HttpResult> {
  return request(`${url}/collect`, {
    method: 'POST',
    headers: { 'content-type': contentType, 'user-agent': userAgent, ...(origin ? { origin } : {}), ...(cookie ? { cookie } : {}), ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

const pageview = (path = '/pricing') => ({
  type: 'pageview',
  id: newId('pv'),
  url: `${ORIGIN}${path}?ref=ad#top`,
  path,
  title: 'Pricing',
  referrer: 'https://search.test/',
  utm: { source: 'news', campaign: 'fall' },
});

/** What the act put on visitors.collected for the site (the answer comes after the write, so the end offsets after it bound the read). */
async function collectedOf(siteId: string, act: () => Promise<unknown>): Promise<ReadMessage[]> {
  const from = await endOffsets(TOPICS.visitorsCollected);
  await act();
  const to = await endOffsets(TOPICS.visitorsCollected);
  return (await readTopic(TOPICS.visitorsCollected, { from, to })).filter((m) => m.json?.siteId === siteId);
}

describe('POST /collect', () => {
  it('when a page view comes from a site origin, then it is in visitors.collected keyed site:visitor with what the gateway adds, and the answer sets the visitor cookie and CORS for that origin', async () => {
    const site = await createSite();
    const view = pageview();
    let res!: HttpResult;
    const messages = await collectedOf(site.id, async () => (res = await collect({ site: site.key, events: [view] })));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ vid: expect.stringMatching(/^[a-f0-9]{24}$/), accepted: 1 });
    const vid = res.body.vid as string;
    expect(res.headers.get('set-cookie')).toBe(`_glv=${vid}; Path=/; Max-Age=31536000; SameSite=Lax; HttpOnly`);
    expect(res.headers.get('access-control-allow-origin')).toBe(ORIGIN);
    expect(res.headers.get('access-control-allow-credentials')).toBe('true');
    expect(res.headers.get('vary')).toMatch(/Origin/);
    expect(messages).toHaveLength(1);
    expect(messages[0]!.key).toBe(`${site.id}:${vid}`);
    expect(messages[0]!.json).toEqual({
      ...view,
      // Trimmed before Kafka: no query key the site did not allow, no fragment.
      url: `${ORIGIN}/pricing`,
      accountId: site.accountId,
      siteId: site.id,
      visitorId: vid,
      receivedAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/),
      userAgent: BROWSER,
      ip: expect.stringMatching(/127\.0\.0\.1/),
    });
  });

  it('when the tag comes back with the cookie, then the same visitor id is used; a body vid counts only without a valid cookie', async () => {
    const site = await createSite();
    const first = await collect({ site: site.key, events: [pageview()] });
    const vid = first.body.vid as string;
    const again = await collect({ site: site.key, events: [pageview('/docs')] }, { cookie: `_glv=${vid}` });
    expect(again.body.vid).toBe(vid);
    const other = 'abcdef0123456789abcdef01';
    expect((await collect({ site: site.key, vid: other, events: [pageview()] })).body.vid).toBe(other);
    expect((await collect({ site: site.key, vid: other, events: [pageview()] }, { cookie: '_glv=bad' })).body.vid).toBe(other);
    expect((await collect({ site: site.key, vid: 'NOT-A-VID', events: [pageview()] })).body.vid).not.toBe(vid);
  });

  it("when a script sends another body vid beside the HttpOnly cookie, then the cookie wins: the message in Kafka and the cookie set are the cookie visitor's", async () => {
    const site = await createSite();
    const vid = (await collect({ site: site.key, events: [pageview()] })).body.vid as string;
    const forged = 'abcdef0123456789abcdef02';
    let res!: HttpResult;
    const messages = await collectedOf(
      site.id,
      async () => (res = await collect({ site: site.key, vid: forged, events: [pageview('/forged')] }, { cookie: `_glv=${vid}` })),
    );
    expect(res.body.vid).toBe(vid);
    expect(res.headers.get('set-cookie')).toMatch(new RegExp(`^_glv=${vid};`));
    expect(messages.map((m) => [m.key, m.json?.visitorId])).toEqual([[`${site.id}:${vid}`, vid]]);
  });

  it('when the request came over https (through a trusted proxy), then the cookie is Secure', async () => {
    const site = await createSite();
    const res = await collect({ site: site.key, events: [pageview()] }, { headers: { 'x-forwarded-proto': 'https' } });
    expect(res.headers.get('set-cookie')).toMatch(/; Secure$/);
  });

  it('when the Origin is foreign or missing, then it is 403 without CORS headers and nothing is produced', async () => {
    const site = await createSite();
    const answers: HttpResult[] = [];
    const messages = await collectedOf(site.id, async () => {
      answers.push(await collect({ site: site.key, events: [pageview()] }, { origin: 'https://evil.test' }));
      answers.push(await collect({ site: site.key, events: [pageview()] }, { origin: null }));
      answers.push(await collect({ site: site.key, events: [pageview()] }, { origin: 'https://shop.example.test:8443' }));
    });
    for (const res of answers) {
      expect(res.status).toBe(403);
      expect(res.body.error).toBe('forbidden');
      expect(res.headers.get('access-control-allow-origin')).toBeNull();
      expect(res.headers.get('set-cookie')).toBeNull();
    }
    expect(messages).toEqual([]);
  });

  it('when the site key is unknown or malformed, then it is 401', async () => {
    for (const key of ['glp_' + 'A'.repeat(32), 'glk_nope', 42]) {
      const res = await collect({ site: key, events: [pageview()] });
      expect(res.status).toBe(401);
      expect(res.body.error).toBe('unauthorized');
    }
  });

  it('when the body breaks the wire format, then it is 400 with CORS (the tag reads it) and nothing is produced', async () => {
    const site = await createSite();
    const answers: HttpResult[] = [];
    const messages = await collectedOf(site.id, async () => {
      answers.push(await collect({ site: site.key, events: [] }));
      answers.push(await collect({ site: site.key, events: [pageview(), { type: 'pageview', id: 'x', path: '/' }] }));
      answers.push(await collect({ site: site.key, events: Array.from({ length: 51 }, () => pageview()) }));
      answers.push(await collect({ site: site.key, events: [{ ...pageview(), path: 'no-slash' }] }));
      answers.push(await collect({ site: site.key, events: [pageview()], extra: true }));
    });
    for (const res of answers) {
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error: 'invalid_request', message: expect.any(String) });
      expect(res.headers.get('access-control-allow-origin')).toBe(ORIGIN);
    }
    expect(messages).toEqual([]);
    expect((await collect('{not json')).status).toBe(400);
  });

  it('when the body is another media type or over 32 KB, then it is 415 or 413', async () => {
    const site = await createSite();
    expect((await collect({ site: site.key, events: [pageview()] }, { contentType: 'application/x-www-form-urlencoded' })).status).toBe(415);
    const big = { site: site.key, events: [{ ...pageview(), title: 'x'.repeat(500) }], pad: 'x'.repeat(33 * 1024) };
    expect((await collect(big)).status).toBe(413);
  });

  it('when the tag posts application/json, then the preflight is answered for the site origins and the post is taken', async () => {
    const site = await createSite();
    const preflight = await fetch(`${gateway.url}/collect?site=${site.key}`, {
      method: 'OPTIONS',
      headers: { origin: ORIGIN, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe(ORIGIN);
    expect(preflight.headers.get('access-control-allow-headers')).toMatch(/content-type/i);
    const foreign = await fetch(`${gateway.url}/collect?site=${site.key}`, {
      method: 'OPTIONS',
      headers: { origin: 'https://evil.test', 'access-control-request-method': 'POST' },
    });
    expect(foreign.status).toBe(403);
    expect(foreign.headers.get('access-control-allow-origin')).toBeNull();
    const res = await collect({ site: site.key, events: [pageview()] }, { contentType: 'application/json' });
    expect(res.status).toBe(200);
  });

  it('when events of every kind come, then identify is normalised, track names the site does not allow are dropped and counted', async () => {
    const site = await createSite();
    let res!: HttpResult;
    const view = pageview();
    const messages = await collectedOf(site.id, async () => {
      res = await collect({
        site: site.key,
        events: [
          view,
          { type: 'engagement', id: newId('en'), pageViewId: view.id, seconds: 14 },
          { type: 'identify', id: newId('id'), email: ' Ann.Lee@Example.COM ', traits: { plan: 'pro' }, path: '/pricing' },
          { type: 'track', id: newId('tr'), event: 'signup', properties: { plan: 'pro' } },
          { type: 'track', id: newId('tr'), event: 'not_allowed' },
        ],
      });
    });
    expect(res.body).toEqual({ vid: expect.any(String), accepted: 4 });
    expect(messages.map((m) => m.json.type).sort()).toEqual(['engagement', 'identify', 'pageview', 'track']);
    expect(messages.find((m) => m.json.type === 'identify')!.json.email).toBe('ann.lee@example.com');
    expect(messages.every((m) => m.key === `${site.id}:${res.body.vid}`)).toBe(true);
    const metrics = await (await fetch(`${gateway.url}/metrics`)).text();
    expect(metrics).toMatch(/glimpse_collect_dropped_total\{reason="track_not_allowed"\} [1-9]/);
    expect(metrics).toMatch(/glimpse_collect_accepted_total [1-9]/);
  });

  it('when a bot sends page views, then each is a bot message keyed by the site with the reason, no visitor id or cookie, and it is counted', async () => {
    const site = await createSite();
    let res!: HttpResult;
    const messages = await collectedOf(site.id, async () => {
      res = await collect(
        { site: site.key, events: [pageview(), pageview('/b')] },
        { userAgent: 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)' },
      );
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ vid: null, accepted: 0, bot: true });
    expect(res.headers.get('set-cookie')).toBeNull();
    expect(messages).toHaveLength(2);
    for (const m of messages) {
      expect(m.key).toBe(`${site.id}:bot`);
      expect(m.json).toEqual({
        type: 'bot',
        id: expect.any(String),
        accountId: site.accountId,
        siteId: site.id,
        receivedAt: expect.any(String),
        reason: expect.stringMatching(/google/i),
      });
    }
    const metrics = await (await fetch(`${gateway.url}/metrics`)).text();
    expect(metrics).toMatch(/glimpse_collect_bots_total\{reason="google[a-z_]*"\} [2-9]/);
  });
});

describe('POST /collect while Kafka is unreachable', () => {
  let down: Gateway;
  beforeAll(async () => {
    // Nothing listens on port 9: no broker ever answers this gateway.
    down = await startTestGateway({ KAFKA_BROKERS: '127.0.0.1:9', KAFKA_SEND_TIMEOUT_MS: '1000' });
  });
  afterAll(async () => {
    await down?.stop();
  });

  it('when a page view cannot be recorded, then it is 503 with Retry-After (CORS kept, so the tag retries) and no cookie', async () => {
    const site = await createSite();
    const res = await collect({ site: site.key, events: [pageview()] }, { url: down.url });
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('1');
    expect(res.headers.get('access-control-allow-origin')).toBe(ORIGIN);
    expect(res.headers.get('set-cookie')).toBeNull();
  });
});

describe('POST /collect over the site rate limit', () => {
  let limited: Gateway;
  beforeAll(async () => {
    limited = await startTestGateway({ COLLECT_RATE_LIMIT_PER_SECOND: '2' });
  });
  afterAll(async () => {
    await limited?.stop();
  });

  it('when a site sends more requests in a second than its limit, then the rest are 429 with Retry-After, readable by the tag', async () => {
    const site = await createSite(limited.url);
    const answers = await Promise.all(Array.from({ length: 6 }, () => collect({ site: site.key, events: [pageview()] }, { url: limited.url })));
    const refused = answers.filter((r) => r.status === 429);
    expect(refused.length).toBeGreaterThan(0);
    for (const res of refused) {
      expect(res.body.error).toBe('rate_limited');
      expect(res.headers.get('retry-after')).toBe('1');
      expect(res.headers.get('access-control-allow-origin')).toBe(ORIGIN);
    }
  });
});
