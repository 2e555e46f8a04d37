// Email-link tokens through the gateway over HTTP with real Postgres (sites, revocations), Redis
// and Kafka (visitors.collected, read back): each token has an id, one token or all the account's
// tokens issued so far can be revoked, and a revoked token's link page view identifies nobody (the
// page view still counts). Erasure's revocations are in link-erasure.int.test.ts.
import { TOPICS } from '@glimpse/messaging';
import { closeTestDb, request, startTestGateway, testDb, type HttpResult } from '../../../test/support/stack';
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

const ORIGIN = 'https://links.example.test';
let counter = 0;
const newId = (prefix: string) => `${prefix}_${Date.now().toString(36)}${(counter++).toString(36).padStart(4, '0')}`;
const newAddress = () => `198.51.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250) + 1}`;

async function createSite() {
  const manager = await createManager();
  const client = api(gateway.url, manager.key);
  const res = await client.post('/account/sites', { name: 'Links', origins: [ORIGIN] });
  expect(res.status).toBe(201);
  return { id: res.body.id as string, key: res.body.key as string, accountId: manager.accountId, client };
}
type Site = Awaited<ReturnType<typeof createSite>>;

async function issue(site: Site, email: string): Promise<{ token: string; id: string; expiresAt: string }> {
  const res = await site.client.post('/account/link-tokens', { email });
  expect(res.status).toBe(201);
  return res.body;
}

/** A page view with the link on the site: the answer and what reached visitors.collected. */
async function follow(site: Site, token: string): Promise<{ res: HttpResult; messages: ReadMessage[] }> {
  const from = await endOffsets(TOPICS.visitorsCollected);
  const res = await request(`${gateway.url}/collect`, {
    method: 'POST',
    headers: {
      'content-type': 'text/plain;charset=UTF-8',
      origin: ORIGIN,
      'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) Chrome/131.0.0.0',
      'x-forwarded-for': newAddress(),
    },
    body: JSON.stringify({
      site: site.key,
      events: [
        { type: 'pageview', id: newId('pv'), path: '/offer', title: 'Offer' },
        { type: 'link', id: newId('ln'), token, path: '/offer' },
      ],
    }),
  });
  expect(res.status).toBe(200);
  const to = await endOffsets(TOPICS.visitorsCollected);
  return { res, messages: (await readTopic(TOPICS.visitorsCollected, { from, to })).filter((m) => m.json?.siteId === site.id) };
}

const identifiedEmails = (messages: ReadMessage[]) => messages.filter((m) => m.json?.type === 'identify').map((m) => m.json?.email);

describe('link tokens', () => {
  it('when a token is made, then it is answered with its id and an expiry 30 days on by default; more than 90 days is refused', async () => {
    const site = await createSite();
    const before = Date.now();
    const issued = await issue(site, 'Id.Person@Example.com');
    expect(issued).toEqual({
      token: expect.stringMatching(/^[A-Za-z0-9_-]+$/),
      id: expect.stringMatching(/^[A-Za-z0-9_-]{22}$/),
      expiresAt: expect.any(String),
    });
    expect(Date.parse(issued.expiresAt) - before).toBeGreaterThanOrEqual(30 * 86_400_000 - 1000);
    expect(Date.parse(issued.expiresAt) - before).toBeLessThan(30 * 86_400_000 + 60_000);
    const tooLong = await site.client.post('/account/link-tokens', { email: 'x@example.com', ttl_days: 91 });
    expect(tooLong.status).toBe(400);
    expect(tooLong.body.message).toContain('ttl_days must be 1 to 90');
    expect((await site.client.post('/account/link-tokens', { email: 'x@example.com', ttl_days: 90 })).status).toBe(201);
  });

  it("when one token is revoked, then its link identifies nobody (also when it identified before), the account's other token still does, and another account cannot revoke it", async () => {
    const site = await createSite();
    const [one, two] = [await issue(site, 'one@example.com'), await issue(site, 'two@example.com')];
    // Followed once before the revocation: its answer is in the gateway's cache.
    expect(identifiedEmails((await follow(site, one.token)).messages)).toEqual(['one@example.com']);

    const other = await createSite();
    expect((await other.client.del(`/account/link-tokens/${two.id}`)).status).toBe(204);
    expect((await site.client.del(`/account/link-tokens/${one.id}`)).status).toBe(204);
    expect((await site.client.del(`/account/link-tokens/${one.id}`)).status).toBe(204); // idempotent

    const revoked = await follow(site, one.token);
    expect(revoked.res.body).toMatchObject({ accepted: 1 });
    expect(revoked.messages.map((m) => m.json?.type)).toEqual(['pageview']);
    expect(identifiedEmails((await follow(site, two.token)).messages)).toEqual(['two@example.com']);
  });

  it("when all the account's tokens are revoked, then every token issued before identifies nobody and one made after does", async () => {
    const site = await createSite();
    const [a, b] = [await issue(site, 'a@example.com'), await issue(site, 'b@example.com')];
    expect(identifiedEmails((await follow(site, a.token)).messages)).toEqual(['a@example.com']);
    expect((await site.client.del('/account/link-tokens')).status).toBe(204);
    expect(identifiedEmails((await follow(site, a.token)).messages)).toEqual([]);
    expect(identifiedEmails((await follow(site, b.token)).messages)).toEqual([]);
    const after = await issue(site, 'a@example.com');
    expect(identifiedEmails((await follow(site, after.token)).messages)).toEqual(['a@example.com']);
    const rows = await testDb('identity').linkTokenRevocation.findMany({ where: { accountId: site.accountId } });
    expect(rows).toEqual([expect.objectContaining({ tokenId: '*', revokedBefore: expect.any(Date), expiresAt: expect.any(Date) })]);
  });

  it('when a revocation names an id that is not one, then it is 400 and nothing is stored', async () => {
    const site = await createSite();
    const res = await site.client.del('/account/link-tokens/not-an-id');
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error: 'invalid_request', message: expect.stringContaining('id') });
    expect(await testDb('identity').linkTokenRevocation.count({ where: { accountId: site.accountId } })).toBe(0);
  });

  it('when revocation rows are past their expiry, then the next revocation purges them', async () => {
    const site = await createSite();
    const issued = await issue(site, 'old@example.com');
    expect((await site.client.del(`/account/link-tokens/${issued.id}`)).status).toBe(204);
    await testDb('identity').linkTokenRevocation.updateMany({ where: { accountId: site.accountId }, data: { expiresAt: new Date(Date.now() - 1000) } });
    expect((await (await createSite()).client.del('/account/link-tokens')).status).toBe(204);
    expect(await testDb('identity').linkTokenRevocation.count({ where: { accountId: site.accountId } })).toBe(0);
  });
});
