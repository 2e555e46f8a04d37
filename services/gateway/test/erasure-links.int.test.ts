// Erasing a person through the gateway (DELETE /account/persons/{email}) with the whole stack
// (playbook, webhooks, visitors and enrichment services, real Postgres, Redis and Kafka): every link
// token of the person's emails is dead for good (a link page view after the erasure identifies
// nobody, also once the visitors service's 72-hour tombstone is gone), and the visitors linked
// through any of the person's emails (as the enrichment dataset knows them) lose their links.
import { generatePerson, importPersons } from '@glimpse/enrichment';
import { TOPICS } from '@glimpse/messaging';
import { closeTestDb, request, startManagementStack, testDb, waitFor, type HttpResult } from '../../../test/support/stack';
import { endOffsets, readTopic, type ReadMessage } from '../../../test/support/kafka-helpers';
import { api, createManager } from './management-helpers';

let stack: Awaited<ReturnType<typeof startManagementStack>>;
beforeAll(async () => {
  stack = await startManagementStack({}, { webhooks: true });
});
afterAll(async () => {
  await stack?.stop();
  await closeTestDb();
});

const ORIGIN = 'https://erasure.example.test';
let n = 0;
const id = (p: string) => `${p}_${Date.now().toString(36)}${(n++).toString(36).padStart(4, '0')}`;
const tag = () => `${Date.now().toString(36)}${Math.floor(Math.random() * 1e9).toString(36)}`;

async function setUp() {
  const manager = await createManager(['account:manage', 'visitors:read']);
  const client = api(stack.gateway.url, manager.key);
  const site = (await client.post('/account/sites', { name: 'Erasure', origins: [ORIGIN] })).body as { id: string; key: string };
  /** Sends the events as a new browser; answers the visitor id and what reached visitors.collected. */
  const collect = async (events: unknown[]): Promise<{ res: HttpResult; vid: string; messages: ReadMessage[] }> => {
    const from = await endOffsets(TOPICS.visitorsCollected);
    const res = await request(`${stack.gateway.url}/collect`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain;charset=UTF-8', origin: ORIGIN, 'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) Chrome/131.0.0.0 Safari/537.36' },
      body: JSON.stringify({ site: site.key, events: [{ type: 'pageview', id: id('pv'), path: '/offer', title: 'Offer' }, ...events] }),
    });
    expect(res.status).toBe(200);
    const to = await endOffsets(TOPICS.visitorsCollected);
    const messages = (await readTopic(TOPICS.visitorsCollected, { from, to })).filter((m) => m.json?.siteId === site.id);
    return { res, vid: res.body.vid as string, messages };
  };
  /** The visitor's record once its page view is counted: identified or not, nothing of it is still in flight. */
  const record = (vid: string) =>
    waitFor(
      async () => {
        const r = await client.get(`/account/visitors/${vid}`);
        return r.status === 200 ? r : undefined;
      },
      { what: `visitor ${vid} counted` },
    );
  const identified = (vid: string, email: string) =>
    waitFor(
      async () => {
        const r = await client.get(`/account/visitors/${vid}`);
        return r.status === 200 && r.body.email === email ? r : undefined;
      },
      { what: `visitor ${vid} identified as ${email}` },
    );
  return { manager, client, site, collect, record, identified };
}

const identifies = (messages: ReadMessage[]) => messages.filter((m) => m.json?.type === 'identify').map((m) => m.json?.email);

describe('erasure and link tokens', () => {
  it("when a person is erased, then their link token identifies nobody afterwards, also once the visitors service's 72-hour tombstone is gone", async () => {
    const { manager, client, collect, record, identified } = await setUp();
    const email = `linked.${tag()}@example.com`;
    const { token } = (await client.post('/account/link-tokens', { email })).body as { token: string };
    const first = await collect([{ type: 'link', id: id('ln'), token }]);
    await identified(first.vid, email);

    const erased = await client.del(`/account/persons/${encodeURIComponent(email)}`);
    expect(erased.status).toBe(200);
    expect(erased.body).toMatchObject({ deletedVisitors: 1, deletedVisitorLinks: 1 });

    const after = await collect([{ type: 'link', id: id('ln'), token }]);
    expect(after.res.body).toMatchObject({ accepted: 1 });
    expect(identifies(after.messages)).toEqual([]);
    expect((await record(after.vid)).body.email ?? null).toBeNull();

    // 73 hours on: the visitors service has purged its tombstone of the email, the revocation is still there.
    await testDb('visitors').$executeRawUnsafe(`DELETE FROM visitors.visitor_erasures WHERE account_id = $1::uuid`, manager.accountId);
    await testDb('identity').$executeRawUnsafe(
      `UPDATE identity.link_token_revocations SET revoked_at = revoked_at - interval '73 hours' WHERE account_id = $1::uuid`,
      manager.accountId,
    );
    const later = await collect([{ type: 'link', id: id('ln'), token }]);
    expect(identifies(later.messages)).toEqual([]);
    expect((await record(later.vid)).body.email ?? null).toBeNull();
    const rows = await testDb('identity').linkTokenRevocation.findMany({ where: { accountId: manager.accountId } });
    // One row per erased email, under a keyed hash (never the email), kept past the longest token's life.
    expect(rows).toEqual([expect.objectContaining({ tokenId: expect.stringMatching(/^email:[a-f0-9]{64}$/) })]);
    expect(rows[0]!.expiresAt.getTime() - Date.now()).toBeGreaterThan(364 * 86_400_000);
    expect(JSON.stringify(rows)).not.toContain(email);
  });

  it("when a person with two emails is erased by one, then the visitors identified by either lose their links, and the other email's link token identifies nobody", async () => {
    const { client, collect, identified, record } = await setUp();
    const t = tag();
    const person = generatePerson(0, Math.floor(Math.random() * 1e9));
    person.traits.work_email = `two.emails.${t}@example.com`;
    person.traits.recommended_personal_email = `two.emails.home.${t}@example.net`;
    await importPersons(
      (async function* () {
        yield JSON.stringify(person);
      })(),
      { db: testDb('enrichment'), defaultPhoneRegion: 'US' },
    );
    const [work, home] = [`two.emails.${t}@example.com`, `two.emails.home.${t}@example.net`];
    const byWork = await collect([{ type: 'identify', id: id('id'), email: work }]);
    const byHome = await collect([{ type: 'identify', id: id('id'), email: home }]);
    await identified(byWork.vid, work);
    await identified(byHome.vid, home);
    const { token: homeToken } = (await client.post('/account/link-tokens', { email: home })).body as { token: string };

    const erased = await client.del(`/account/persons/${encodeURIComponent(work)}`);
    expect(erased.status).toBe(200);
    expect(erased.body).toMatchObject({ deletedVisitors: 2, deletedVisitorLinks: 2 });
    // Both visitors' aggregates went with their links.
    expect((await client.get(`/account/visitors/${byWork.vid}`)).status).toBe(404);
    expect((await client.get(`/account/visitors/${byHome.vid}`)).status).toBe(404);
    const links = await testDb('visitors').$queryRawUnsafe<{ n: number }[]>(
      `SELECT count(*)::int AS n FROM visitors.identity_links WHERE email = ANY($1::text[])`,
      [work, home],
    );
    expect(links).toEqual([{ n: 0 }]);

    const after = await collect([{ type: 'link', id: id('ln'), token: homeToken }]);
    expect(identifies(after.messages)).toEqual([]);
    expect((await record(after.vid)).body.email ?? null).toBeNull();
  });
});
