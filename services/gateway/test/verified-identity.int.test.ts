// Verified identity end to end: a site's identity secret (shown once, rotated), and identify calls
// sent to the real POST /collect as anyone with the site key can send them (a hand-typed Origin,
// no browser), applied by the visitors service and read back through the details lookup. A forged
// identify (no hash, or another secret's) identifies nobody on a site that requires verification,
// and only a claim on one where it is optional; the site's own hash makes a verified one.
import { createHmac } from 'node:crypto';
import { closeTestDb, request, startManagementStack, testDb, waitFor, type HttpResult } from '../../../test/support/stack';
import { api, createManager } from './management-helpers';

// A short site cache, so a rotation or an expiry reaches the collect path within the tests' waits.
const SITE_CACHE_TTL_MS = 300;
let stack: Awaited<ReturnType<typeof startManagementStack>>;
beforeAll(async () => {
  stack = await startManagementStack({ SITE_CACHE_TTL_MS: String(SITE_CACHE_TTL_MS) }, { visitors: true });
});
afterAll(async () => {
  await stack?.stop();
  await closeTestDb();
});

const ORIGIN = 'https://verified.example.test';
const BROWSER = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';
let n = 0;
const id = (p: string) => `${p}_${Date.now().toString(36)}${(n++).toString(36).padStart(4, '0')}`;
const uniqueEmail = (who: string) => `${who}.${Date.now().toString(36)}${(n++).toString(36)}@example.com`;
/** What the site's server computes: HMAC-SHA256(secret, email trimmed and lower-cased), lower-case hex. */
const hashOf = (secret: string, email: string) => createHmac('sha256', secret).update(email.trim().toLowerCase()).digest('hex');
const newAddress = () => `198.51.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250) + 1}`;

interface Site {
  id: string;
  key: string;
  secret: string;
  managerKey: string;
}

async function createSite(mode: 'off' | 'optional' | 'required'): Promise<Site> {
  const manager = await createManager(['account:manage', 'visitors:read']);
  const res = await api(stack.gateway.url, manager.key).post('/account/sites', { name: 'Verified', origins: [ORIGIN] });
  expect(res.status).toBe(201);
  // The mode is set in the row (as PATCH does), so the same test runs against a gateway that knows no such setting.
  await testDb('identity').site.update({ where: { id: res.body.id }, data: { identityVerification: mode } });
  return { id: res.body.id, key: res.body.key, secret: res.body.identity_secret, managerKey: manager.key };
}

/** POST /collect exactly as curl would send it: any Origin can be typed. */
function collect(site: Site, events: unknown[], address = newAddress()): Promise<HttpResult> {
  return request(`${stack.gateway.url}/collect`, {
    method: 'POST',
    headers: { 'content-type': 'text/plain;charset=UTF-8', origin: ORIGIN, 'user-agent': BROWSER, 'x-forwarded-for': address },
    body: JSON.stringify({ site: site.key, events }),
  });
}

const pageview = (path: string) => ({ type: 'pageview', id: id('pv'), url: `${ORIGIN}${path}`, path, title: path });
const identify = (email: string, hash?: string) => ({ type: 'identify', id: id('id'), email, path: '/account', ...(hash !== undefined ? { hash } : {}) });

function details(site: Site, vid: string): Promise<HttpResult> {
  return request(`${stack.gateway.url}/visitors/${vid}/details`, { headers: { authorization: `Bearer ${site.managerKey}` } });
}

/**
 * A visitor's page view with `identifyEvent`, then a second page view after it on the same visitor
 * (the same partition, so applied after): the details once both page views are counted, when
 * whatever the identify did is done.
 */
async function visitWithIdentify(site: Site, identifyEvent: unknown): Promise<{ vid: string; accepted: number; body: Record<string, unknown> }> {
  const address = newAddress();
  const first = await collect(site, [pageview('/'), identifyEvent], address);
  expect([first.status, first.body]).toEqual([200, expect.anything()]);
  const vid = first.body.vid as string;
  const second = await request(`${stack.gateway.url}/collect`, {
    method: 'POST',
    headers: { 'content-type': 'text/plain;charset=UTF-8', origin: ORIGIN, 'user-agent': BROWSER, 'x-forwarded-for': address, cookie: `_glv=${vid}` },
    body: JSON.stringify({ site: site.key, events: [pageview('/after')] }),
  });
  expect(second.status).toBe(200);
  const res = await waitFor(
    async () => {
      const r = await details(site, vid);
      return r.status === 200 && r.body.page_views === 2 ? r : undefined;
    },
    { what: 'both page views applied', timeoutMs: 45_000 },
  );
  return { vid, accepted: first.body.accepted as number, body: res.body as Record<string, unknown> };
}

describe('a forged identify (the site key, a typed Origin, someone else’s email)', () => {
  it('when the site requires verification, then an identify without a hash or with a wrong one identifies nobody', async () => {
    const site = await createSite('required');
    const victim = uniqueEmail('victim');
    const forgedSecret = `gis_${'A'.repeat(43)}`;
    for (const forged of [identify(victim), identify(victim, hashOf(forgedSecret, victim)), identify(victim, 'not-a-hash')]) {
      const { accepted, body } = await visitWithIdentify(site, forged);
      // Only the page view was taken: the identify was dropped before Kafka.
      expect(accepted).toBe(1);
      expect(body.email).toBeUndefined();
      expect(body.identified_by).toBeUndefined();
      expect(JSON.stringify(body)).not.toContain(victim);
    }
  }, 120_000);

  it('when verification is optional, then the forged identify is taken as a claim: verified false, confidence below 1', async () => {
    const site = await createSite('optional');
    const claimed = uniqueEmail('claimed');
    const { vid, accepted, body } = await visitWithIdentify(site, identify(claimed));
    expect(accepted).toBe(2);
    expect(body.email).toBe(claimed);
    expect(body.identified_by).toEqual({ method: 'identify', at: expect.any(String), confidence: 0.7, verified: false });
    // The same in the visitor's record and the visitors list (the console's pages).
    const record = await api(stack.gateway.url, site.managerKey).get(`/account/visitors/${vid}`);
    expect(record.body.identifiedBy).toMatchObject({ method: 'identify', confidence: 0.7, verified: false });
    expect(record.body.identityHistory).toEqual([expect.objectContaining({ email: claimed, confidence: 0.7, verified: false })]);
    const list = await api(stack.gateway.url, site.managerKey).get('/account/visitors?identified=true');
    expect(list.body.items).toEqual([expect.objectContaining({ id: vid, identifiedBy: expect.objectContaining({ verified: false }) })]);
  }, 60_000);

  it("when the identify carries the site's own hash, then it is verified at confidence 1 (in either mode)", async () => {
    for (const mode of ['optional', 'required'] as const) {
      const site = await createSite(mode);
      const email = uniqueEmail(`verified-${mode}`);
      const { vid, accepted, body } = await visitWithIdentify(site, identify(` ${email.toUpperCase()} `, hashOf(site.secret, email)));
      expect(accepted).toBe(2);
      expect(body.email).toBe(email);
      expect(body.identified_by).toEqual({ method: 'identify', at: expect.any(String), confidence: 1, verified: true });
      const record = await api(stack.gateway.url, site.managerKey).get(`/account/visitors/${vid}`);
      expect(record.body.identityHistory).toEqual([expect.objectContaining({ email, confidence: 1, verified: true })]);
    }
  }, 120_000);
});

describe('identity secrets', () => {
  it('when a site is rotated, then the new secret is answered once, the old hash keeps verifying within the overlap and the new one verifies after', async () => {
    const site = await createSite('required');
    const client = api(stack.gateway.url, site.managerKey);
    expect((await client.get(`/account/sites/${site.id}`)).body).toMatchObject({ identity_verification: 'required', identity_secret_set: true });
    expect(JSON.stringify((await client.get(`/account/sites/${site.id}`)).body)).not.toContain(site.secret);

    const rotated = await client.post(`/account/sites/${site.id}/identity-secret`);
    expect(rotated.status).toBe(200);
    expect(rotated.headers.get('cache-control')).toBe('no-store');
    const fresh = rotated.body.identity_secret as string;
    expect(fresh).toMatch(/^gis_[A-Za-z0-9_-]{43}$/);
    expect(fresh).not.toBe(site.secret);
    const overlap = Date.parse(rotated.body.previous_expires_at) - Date.now();
    expect(overlap).toBeGreaterThan(23.9 * 3_600_000);
    expect(overlap).toBeLessThanOrEqual(24 * 3_600_000);
    expect(JSON.stringify((await client.get(`/account/sites/${site.id}`)).body)).not.toContain(fresh);

    // The new secret verifies once the collect path's site cache has the rotation (its TTL).
    const email = uniqueEmail('rotated');
    await waitFor(async () => (await collect(site, [pageview('/'), identify(email, hashOf(fresh, email))])).body.accepted === 2, {
      what: 'the new secret verifying',
      timeoutMs: 20_000,
    });
    // The old one still verifies: it is the previous secret, within its 24 hours.
    expect((await collect(site, [pageview('/'), identify(email, hashOf(site.secret, email))])).body.accepted).toBe(2);

    // Once the overlap is over, the old one verifies no more (and the new one still does).
    await testDb('identity').site.update({ where: { id: site.id }, data: { previousIdentitySecretExpiresAt: new Date(Date.now() - 1000) } });
    await waitFor(async () => (await collect(site, [pageview('/'), identify(email, hashOf(site.secret, email))])).body.accepted === 1, {
      what: 'the expired previous secret refused',
      timeoutMs: 20_000,
    });
    expect((await collect(site, [pageview('/'), identify(email, hashOf(fresh, email))])).body.accepted).toBe(2);
  }, 90_000);

  it('when a site from before identity secrets (none stored) is rotated, then it gets its first secret and no previous one', async () => {
    const site = await createSite('optional');
    await testDb('identity').site.update({ where: { id: site.id }, data: { identitySecret: null } });
    const client = api(stack.gateway.url, site.managerKey);
    expect((await client.get(`/account/sites/${site.id}`)).body).toMatchObject({ identity_secret_set: false });
    const rotated = await client.post(`/account/sites/${site.id}/identity-secret`);
    expect(rotated.status).toBe(200);
    expect(rotated.body).toEqual({ identity_secret: expect.stringMatching(/^gis_/), previous_expires_at: null });
    expect((await client.get(`/account/sites/${site.id}`)).body).toMatchObject({ identity_secret_set: true });
    const stored = await testDb('identity').site.findUniqueOrThrow({ where: { id: site.id } });
    expect(stored).toMatchObject({ identitySecret: rotated.body.identity_secret, previousIdentitySecret: null, previousIdentitySecretExpiresAt: null });
  });

  it("when another account's site or an unknown id is rotated, then it is 404 and nothing changes", async () => {
    const site = await createSite('off');
    const other = await createManager();
    const before = await testDb('identity').site.findUniqueOrThrow({ where: { id: site.id } });
    expect((await api(stack.gateway.url, other.key).post(`/account/sites/${site.id}/identity-secret`)).status).toBe(404);
    expect((await api(stack.gateway.url, site.managerKey).post('/account/sites/not-a-uuid/identity-secret')).status).toBe(404);
    const after = await testDb('identity').site.findUniqueOrThrow({ where: { id: site.id } });
    expect(after.identitySecret).toBe(before.identitySecret);
  });
});
