// Identification and consent on POST /collect through the gateway over HTTP with real Postgres
// (sites), Redis (rate limits, the day's salt) and Kafka (visitors.collected, read back with a
// consumer): email-link tokens, form capture per site, consent required (cookieless ids, no
// cookie), a grant and a denial, GPC, the per-address limit; and the sites' settings and snippet.
import { TOPICS } from '@glimpse/messaging';
import { closeTestDb, request, startTestGateway, waitFor, type HttpResult } from '../../../test/support/stack';
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

const ORIGIN = 'https://ident.example.test';
const BROWSER = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';
const OTHER_BROWSER = 'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_5) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Safari/605.1.15';
let counter = 0;
const newId = (prefix: string) => `${prefix}_${Date.now().toString(36)}${(counter++).toString(36).padStart(4, '0')}`;
/** A client address of its own per test (X-Forwarded-For from loopback is trusted), so per-address limits never meet. */
const newAddress = () => `198.51.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250) + 1}`;

interface Site {
  id: string;
  key: string;
  accountId: string;
  managerKey: string;
}

async function createSite(settings: Record<string, unknown> = {}, url = gateway.url): Promise<Site> {
  const manager = await createManager();
  const res = await api(url, manager.key).post('/account/sites', { name: 'Ident', origins: [ORIGIN], track_events: ['signup'], ...settings });
  expect(res.status).toBe(201);
  return { id: res.body.id, key: res.body.key, accountId: manager.accountId, managerKey: manager.key };
}

function collect(
  body: unknown,
  { userAgent = BROWSER, cookie, address, url = gateway.url }: { userAgent?: string; cookie?: string; address?: string; url?: string } = {},
): Promise<HttpResult> {
  return request(`${url}/collect`, {
    method: 'POST',
    headers: {
      'content-type': 'text/plain;charset=UTF-8',
      'user-agent': userAgent,
      origin: ORIGIN,
      ...(cookie ? { cookie } : {}),
      ...(address ? { 'x-forwarded-for': address } : {}),
    },
    body: JSON.stringify(body),
  });
}

const pageview = (path = '/pricing') => ({ type: 'pageview', id: newId('pv'), url: `${ORIGIN}${path}`, path, title: 'Pricing' });

async function collectedOf(siteId: string, act: () => Promise<unknown>): Promise<ReadMessage[]> {
  const from = await endOffsets(TOPICS.visitorsCollected);
  await act();
  const to = await endOffsets(TOPICS.visitorsCollected);
  return (await readTopic(TOPICS.visitorsCollected, { from, to })).filter((m) => m.json?.siteId === siteId);
}

describe('email links', () => {
  it("when the tag sends this account's link token, then the visitor is identified with method email_link; another account's token is dropped", async () => {
    const site = await createSite();
    const other = await createManager();
    const issued = await api(gateway.url, site.managerKey).post('/account/link-tokens', { email: ' Link.Person@Example.COM ', ttl_days: 7 });
    expect(issued.status).toBe(201);
    expect(issued.body).toEqual({
      token: expect.stringMatching(/^[A-Za-z0-9_-]+$/),
      id: expect.stringMatching(/^[A-Za-z0-9_-]{22}$/),
      expiresAt: expect.any(String),
    });
    expect(Date.parse(issued.body.expiresAt) - Date.now()).toBeGreaterThan(6.9 * 86_400_000);
    expect(Buffer.from(issued.body.token, 'base64url').includes(Buffer.from('link.person'))).toBe(false);
    const foreign = await api(gateway.url, other.key).post('/account/link-tokens', { email: 'someone@example.com' });
    expect(foreign.status).toBe(201);

    let res!: HttpResult;
    const link = { type: 'link', id: newId('ln'), token: issued.body.token };
    const foreignLink = { type: 'link', id: newId('ln'), token: foreign.body.token };
    const messages = await collectedOf(
      site.id,
      async () => (res = await collect({ site: site.key, events: [pageview(), link, foreignLink] }, { address: newAddress() })),
    );
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ vid: expect.stringMatching(/^[0-9a-f]{24}$/), accepted: 2 });
    const identified = messages.filter((m) => m.json?.type === 'identify');
    expect(identified).toHaveLength(1);
    expect(identified[0]!.key).toBe(`${site.id}:${res.body.vid}`);
    expect(identified[0]!.json).toMatchObject({ id: link.id, visitorId: res.body.vid, email: 'link.person@example.com', method: 'email_link' });
  });

  it('when a link token request breaks a rule, then it is 400 naming it', async () => {
    const manager = await createManager();
    for (const [body, message] of [
      [{}, 'email is required'],
      [{ email: 'x@example.com', ttl_days: 0 }, 'ttl_days must be 1 to 90'],
      [{ email: 'x@example.com', ttl_days: 91 }, 'ttl_days must be 1 to 90'],
      [{ email: 'x@example.com', extra: 1 }, 'unknown field(s): extra'],
    ] as const) {
      const res = await api(gateway.url, manager.key).post('/account/link-tokens', body);
      expect(res.status).toBe(400);
      expect(res.body.message).toContain(message);
    }
  });
});

describe('form capture', () => {
  it('when the site does not capture forms, then a form identify is dropped; when it does, it is produced with method form', async () => {
    const off = await createSite();
    const on = await createSite({ capture_forms: true });
    const form = () => ({ type: 'identify', id: newId('fm'), method: 'form', email: 'Form.Person@example.com', path: '/contact' });
    let offRes!: HttpResult;
    const offMessages = await collectedOf(off.id, async () => (offRes = await collect({ site: off.key, events: [form()] }, { address: newAddress() })));
    expect(offRes.body).toMatchObject({ accepted: 0 });
    expect(offMessages).toEqual([]);
    const onMessages = await collectedOf(on.id, () => collect({ site: on.key, events: [form()] }, { address: newAddress() }));
    expect(onMessages.map((m) => m.json)).toEqual([
      expect.objectContaining({ type: 'identify', email: 'form.person@example.com', method: 'form', path: '/contact' }),
    ]);
  });
});

describe('consent', () => {
  it('when consent is required and not given, then no cookie is set, the page view is cookieless under an id stable for the IP and user agent, and identify is dropped', async () => {
    const site = await createSite({ consent: 'required' });
    const address = newAddress();
    const answers: HttpResult[] = [];
    const messages = await collectedOf(site.id, async () => {
      answers.push(
        await collect(
          { site: site.key, consent: 'pending', events: [pageview(), { type: 'identify', id: newId('id'), email: 'nobody@example.com' }] },
          { address },
        ),
      );
      answers.push(await collect({ site: site.key, consent: 'pending', events: [pageview('/docs')] }, { address }));
      answers.push(await collect({ site: site.key, events: [pageview('/other')] }, { address, userAgent: OTHER_BROWSER }));
    });
    for (const res of answers) {
      expect(res.status).toBe(200);
      expect(res.body.vid).toBeNull();
      expect(res.headers.get('set-cookie')).toBeNull();
    }
    expect(answers[0]!.body.accepted).toBe(1);
    expect(messages.map((m) => m.json?.type)).toEqual(['pageview', 'pageview', 'pageview']);
    for (const m of messages) {
      expect(m.json).toMatchObject({ cookieless: true, visitorId: expect.stringMatching(/^[0-9a-f]{24}$/) });
      expect(m.json).not.toHaveProperty('ip');
    }
    // Messages of different visitors are on different partitions: read them by path, not by order.
    const idOf = (path: string) => messages.find((m) => m.json?.path === path)!.json!.visitorId as string;
    const [a, b, c] = [idOf('/pricing'), idOf('/docs'), idOf('/other')];
    expect(b).toBe(a);
    expect(c).not.toBe(a);
  });

  it("when consent is granted, then the visitor gets a persistent id and cookie, and the consent message carries the views this browser sent while pending (not the day's cookieless id)", async () => {
    const site = await createSite({ consent: 'required' });
    const address = newAddress();
    const first = pageview();
    const before = await collectedOf(site.id, () => collect({ site: site.key, consent: 'pending', events: [first] }, { address }));
    const cookielessId = before[0]!.json!.visitorId as string;
    const views = [{ id: first.id, path: '/pricing?token=x', at: new Date().toISOString() }];
    let res!: HttpResult;
    const messages = await collectedOf(
      site.id,
      async () =>
        (res = await collect(
          { site: site.key, consent: 'pending', events: [{ type: 'consent', id: newId('cs'), state: 'granted', views }, pageview('/after')] },
          { address },
        )),
    );
    const vid = res.body.vid as string;
    expect(vid).toMatch(/^[0-9a-f]{24}$/);
    expect(vid).not.toBe(cookielessId);
    expect(res.headers.get('set-cookie')).toBe(`_glv=${vid}; Path=/; Max-Age=31536000; SameSite=Lax; HttpOnly`);
    expect(messages.map((m) => m.json)).toEqual([
      expect.objectContaining({ type: 'consent', state: 'granted', visitorId: vid, views: [{ ...views[0], path: '/pricing' }] }),
      expect.objectContaining({ type: 'pageview', visitorId: vid, ip: expect.any(String) }),
    ]);
    expect(messages[0]!.json).not.toHaveProperty('cookielessId');
    expect(messages[0]!.key).toBe(`${site.id}:${vid}`);
    expect(messages[1]!.json).not.toHaveProperty('cookieless');

    // Then granted requests keep the persistent id; a denial is about it, and clears the cookie.
    const denied = await collectedOf(
      site.id,
      async () =>
        (res = await collect(
          { site: site.key, consent: 'denied', events: [{ type: 'consent', id: newId('cs'), state: 'denied' }, pageview()] },
          { address, cookie: `_glv=${vid}` },
        )),
    );
    expect(res.body.vid).toBeNull();
    expect(res.headers.get('set-cookie')).toBe('_glv=; Path=/; Max-Age=0; SameSite=Lax; HttpOnly');
    // The denial (keyed by the persistent id) and the cookieless page view are on different partitions.
    const byType = [...denied].sort((x, y) => String(x.json?.type).localeCompare(String(y.json?.type)));
    expect(byType.map((m) => m.json)).toEqual([
      expect.objectContaining({ type: 'consent', state: 'denied', visitorId: vid }),
      expect.objectContaining({ type: 'pageview', cookieless: true, visitorId: cookielessId }),
    ]);
  });

  it('when a consent-required site gets a visitor cookie set while it implied consent, then the cookie alone is no grant: the visitor is cookieless, the cookie is deleted and identify dropped', async () => {
    const site = await createSite();
    const address = newAddress();
    const implied = await collect({ site: site.key, events: [pageview()] }, { address });
    const vid = implied.body.vid as string;
    expect(implied.headers.get('set-cookie')).toContain(`_glv=${vid}`);
    const changed = await api(gateway.url, site.managerKey).patch(`/account/sites/${site.id}`, { consent: 'required' });
    expect(changed.status).toBe(200);
    // The site cache holds the old settings for up to SITE_CACHE_TTL_MS: wait for the change to show.
    let res!: HttpResult;
    let messages: ReadMessage[] = [];
    await waitFor(
      async () => {
        messages = await collectedOf(
          site.id,
          async () =>
            (res = await collect(
              { site: site.key, events: [pageview('/later'), { type: 'identify', id: newId('id'), email: 'cookie.only@example.com' }] },
              { address, cookie: `_glv=${vid}` },
            )),
        );
        return res.body.vid === null;
      },
      { what: 'the site to require consent', timeoutMs: 15_000 },
    );
    expect(res.body).toEqual({ vid: null, accepted: 1 });
    expect(res.headers.get('set-cookie')).toBe('_glv=; Path=/; Max-Age=0; SameSite=Lax; HttpOnly');
    expect(messages.map((m) => m.json)).toEqual([expect.objectContaining({ type: 'pageview', cookieless: true })]);
    expect(messages[0]!.json!.visitorId).not.toBe(vid);
  });

  it('when the browser sends GPC, then a site honouring it counts the visitor cookieless and drops identify; a site that does not, as usual', async () => {
    const honours = await createSite();
    const ignores = await createSite({ honor_gpc: false });
    const events = () => [pageview(), { type: 'identify', id: newId('id'), email: 'gpc@example.com' }];
    let res!: HttpResult;
    const honoured = await collectedOf(
      honours.id,
      async () => (res = await collect({ site: honours.key, gpc: true, events: events() }, { address: newAddress() })),
    );
    expect(res.body).toEqual({ vid: null, accepted: 1 });
    expect(res.headers.get('set-cookie')).toBeNull();
    expect(honoured.map((m) => m.json)).toEqual([expect.objectContaining({ type: 'pageview', cookieless: true })]);
    const ignored = await collectedOf(
      ignores.id,
      async () => (res = await collect({ site: ignores.key, gpc: true, events: events() }, { address: newAddress() })),
    );
    expect(res.body).toEqual({ vid: expect.stringMatching(/^[0-9a-f]{24}$/), accepted: 2 });
    expect(ignored.map((m) => m.json?.type)).toEqual(['pageview', 'identify']);
  });
});

describe('per-address limit', () => {
  let limited: Gateway;
  beforeAll(async () => {
    limited = await startTestGateway({ COLLECT_RATE_LIMIT_PER_IP_PER_SECOND: '3', COLLECT_RATE_LIMIT_PER_SECOND: '8' });
  });
  afterAll(async () => {
    await limited?.stop();
  });

  it("when one address floods a site, then it is refused without spending the site's budget: another address still collects", async () => {
    const site = await createSite({}, limited.url);
    const flooder = newAddress();
    // Wait for the start of a second so the whole flood falls in one window.
    await new Promise((r) => setTimeout(r, 1000 - (Date.now() % 1000) + 10));
    const t0 = Date.now();
    const flood = await Promise.all(
      Array.from({ length: 20 }, () => collect({ site: site.key, events: [pageview()] }, { address: flooder, url: limited.url })),
    );
    // On a loaded machine the flood can spill into the next second (a full run once took 6): 3 per window it spans.
    const windows = Math.floor(Date.now() / 1000) - Math.floor(t0 / 1000) + 1;
    const accepted = flood.filter((r) => r.status === 200).length;
    expect(accepted).toBeGreaterThanOrEqual(3);
    expect(accepted).toBeLessThanOrEqual(3 * windows);
    const refused = flood.filter((r) => r.status === 429);
    expect(refused).toHaveLength(20 - accepted);
    expect(refused[0]!.headers.get('retry-after')).toBe('1');
    const others = await Promise.all(
      [newAddress(), newAddress()].map((address) => collect({ site: site.key, events: [pageview()] }, { address, url: limited.url })),
    );
    expect(others.map((r) => r.status)).toEqual([200, 200]);
  });

  it('when IPv6 addresses share a /64, then they share one budget', async () => {
    const site = await createSite({}, limited.url);
    const prefix = `2001:db8:${Math.floor(Math.random() * 0xffff).toString(16)}:1`;
    await new Promise((r) => setTimeout(r, 1000 - (Date.now() % 1000) + 10));
    const answers = await Promise.all(
      Array.from({ length: 6 }, (_, i) => collect({ site: site.key, events: [pageview()] }, { address: `${prefix}::${i + 1}`, url: limited.url })),
    );
    expect(answers.filter((r) => r.status === 200)).toHaveLength(3);
  });
});

describe('site settings', () => {
  it('when a site is created and changed with capture_forms, consent, honor_gpc and query_keys, then answers carry them and the snippet stays the per-site script', async () => {
    const manager = await createManager();
    const client = api(gateway.url, manager.key);
    const created = await client.post('/account/sites', { name: 'Settings', origins: [ORIGIN] });
    expect(created.body).toMatchObject({ capture_forms: false, consent: 'implied', honor_gpc: true, query_keys: [] });
    expect(created.body.snippet.html).toBe(`<script async src="${gateway.url}/s/${created.body.key}.js"></script>`);
    const changes = { capture_forms: true, consent: 'required', honor_gpc: false, query_keys: ['page', 'q'] };
    const changed = await client.patch(`/account/sites/${created.body.id}`, changes);
    expect(changed.status).toBe(200);
    expect(changed.body).toMatchObject(changes);
    expect(changed.body.snippet.html).toBe(created.body.snippet.html);
    const read = await client.get(`/account/sites/${created.body.id}`);
    expect(read.body).toMatchObject(changes);
    const bad = await client.patch(`/account/sites/${created.body.id}`, { consent: 'sometimes' });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toContain('consent must be "implied" or "required"');
  });
});
