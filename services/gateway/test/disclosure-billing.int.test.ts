// The ledger test: every path that shows an identified person's enriched fields bills what POST
// /visitors/enrichment bills (one identity match, one enriched record), once per person per account
// per month, however many paths and repeats; an account at its credit limit sees the visitor and
// the email it gave, never the fields, and its usage does not move. The identify is a hand-made
// POST /collect (the site key is public, the Origin typed), as anyone could send it.
import { generatePerson, importPersons, normalizeRecord, setCreditLimit, toVisitorDetails } from '@glimpse/enrichment';
import { closeTestDb, createTestApiKey, request, startManagementStack, testDb, waitFor, type HttpResult } from '../../../test/support/stack';
import { startReceiver, type Receiver } from '../../../test/support/webhooks';
import { api, createManager, type Api } from './management-helpers';

let stack: Awaited<ReturnType<typeof startManagementStack>>;
let receiver: Receiver;
const accounts: string[] = [];

beforeAll(async () => {
  [stack, receiver] = await Promise.all([startManagementStack({}, { webhooks: true }), startReceiver()]);
});
afterAll(async () => {
  await stack?.stop();
  await receiver?.close();
  await testDb('webhooks').webhookEndpoint.deleteMany({ where: { accountId: { in: accounts } } });
  await closeTestDb();
});

const ORIGIN = 'https://ledger.example.test';
/** The enriched fields beyond the email: what must never be shown unbilled. */
const ENRICHED = ['firstName', 'lastName', 'name', 'company', 'company_role', 'pronet_url'];
/** Those of the person alone (the companies view may name the company of the email's domain: company data, not the person's). */
const PERSONAL = ENRICHED.filter((f) => f !== 'company');
let n = 0;
const eventId = (prefix: string) => `${prefix}_${Date.now().toString(36)}${(n++).toString(36).padStart(4, '0')}`;

interface Tenant {
  accountId: string;
  client: Api;
  /** An API key with visitors:read, for the details lookup. */
  lookupKey: string;
  siteKey: string;
}

async function tenant(credits: number): Promise<Tenant> {
  const manager = await createManager();
  accounts.push(manager.accountId);
  // The limit before any lookup: the enrichment service believes "no limit" for a second.
  await setCreditLimit(testDb('enrichment'), manager.accountId, credits);
  const client = api(stack.gateway.url, manager.key);
  const site = (await client.post('/account/sites', { name: 'Ledger', origins: [ORIGIN] })).body as { key: string };
  const hook = await client.post('/account/webhooks', { url: receiver.url, events: ['visitor.identified'] });
  expect(hook.status).toBe(201);
  const { key: lookupKey } = await createTestApiKey(manager.accountId, ['visitors:read']);
  return { accountId: manager.accountId, client, lookupKey, siteKey: site.key };
}

async function importedPerson(): Promise<{ email: string; details: Record<string, unknown> }> {
  const person = generatePerson(0, Math.floor(Math.random() * 1e9));
  const email = person.traits.work_email as string;
  await importPersons(
    (async function* () {
      yield JSON.stringify(person);
    })(),
    { db: testDb('enrichment'), defaultPhoneRegion: 'US' },
  );
  return { email, details: toVisitorDetails(normalizeRecord(person)) as Record<string, unknown> };
}

/** A forged identify: the site key and a typed Origin, no browser, no tag. Answers the visitor id. */
async function identifyByHand(t: Tenant, email: string): Promise<string> {
  const sent = await request(`${stack.gateway.url}/collect`, {
    method: 'POST',
    headers: { 'content-type': 'text/plain', origin: ORIGIN, 'user-agent': 'Mozilla/5.0 (Macintosh) Safari/605.1.15', 'x-forwarded-for': '192.0.2.41' },
    body: JSON.stringify({
      site: t.siteKey,
      events: [
        { type: 'pageview', id: eventId('pv'), path: '/pricing' },
        { type: 'identify', id: eventId('id'), email, path: '/pricing' },
      ],
    }),
  });
  expect(sent.status).toBe(200);
  const vid = sent.body.vid as string;
  await waitFor(
    async () => {
      const r = await t.client.get(`/account/visitors/${vid}`);
      return r.status === 200 && r.body.email === email ? r : undefined;
    },
    { what: 'the visitor identified', timeoutMs: 30_000 },
  );
  return vid;
}

/** The visitor.identified delivery of this visitor, once the receiver has it. */
async function deliveredDetails(vid: string): Promise<{ email: string; details: Record<string, unknown> }> {
  const received = await waitFor(
    async () => receiver.requests.find((r) => r.answered === 'ok' && (JSON.parse(r.body) as { data?: { visitor_id?: string } }).data?.visitor_id === vid),
    { what: 'visitor.identified delivered', timeoutMs: 45_000 },
  );
  return (JSON.parse(received.body) as { data: { email: string; details: Record<string, unknown> } }).data;
}

const detailsOf = (t: Tenant, vid: string): Promise<HttpResult> =>
  request(`${stack.gateway.url}/visitors/${vid}/details`, { headers: { authorization: `Bearer ${t.lookupKey}` } });

/** The account's usage as the usage API answers it: the totals and the persons billed this month. */
async function usage(t: Tenant): Promise<{ identityMatches: number; enrichedRecords: number; personsBilled: number }> {
  const res = await t.client.get('/account/usage');
  expect(res.status).toBe(200);
  return { ...(res.body.totals as { identityMatches: number; enrichedRecords: number }), personsBilled: res.body.period.personsBilled as number };
}

const units = (k: number) => ({ identityMatches: k, enrichedRecords: k, personsBilled: k });

/** Every path that could show the person: the details lookup, the visitors list, the visitor record, the console's calls. */
async function walkEveryPath(t: Tenant, vid: string): Promise<Record<string, unknown>[]> {
  const shown: Record<string, unknown>[] = [];
  const details = await detailsOf(t, vid);
  expect(details.status).toBe(200);
  shown.push(details.body);
  for (const path of ['/account/visitors', '/account/visitors?identified=true', `/account/visitors/${vid}`, '/account/companies', '/account/sites']) {
    const res = await t.client.get(path);
    expect(res.status).toBe(200);
    shown.push(res.body);
  }
  return shown;
}

/** Whether any enriched field (beyond the email) of the person appears anywhere in the answers. */
function disclosesFields(answers: unknown[], person: Record<string, unknown>): string[] {
  const text = JSON.stringify(answers);
  return PERSONAL.filter((f) => typeof person[f] === 'string' && text.includes(JSON.stringify(person[f])));
}

it('when a forged identify names a person and every path shows them, again and again, then the account is billed one unit for the person this month; a second person adds one', async () => {
  const t = await tenant(10);
  const ada = await importedPerson();
  expect(await usage(t)).toEqual(units(0));

  const vid = await identifyByHand(t, ada.email);
  // The details lookup shows the fields: one unit (the webhook may have billed it already; then this bills nothing).
  const first = await detailsOf(t, vid);
  expect(first.status).toBe(200);
  expect(first.body).toMatchObject(ada.details);
  expect(await usage(t)).toEqual(units(1));
  // The webhook shows them to the account's receiver: the same person, this month, nothing more.
  const delivered = await deliveredDetails(vid);
  expect(delivered).toMatchObject({ email: ada.email, details: ada.details });
  expect(await usage(t)).toEqual(units(1));

  for (let round = 0; round < 2; round += 1) {
    const details = await detailsOf(t, vid);
    expect(details.status).toBe(200);
    expect(details.body).toMatchObject(ada.details);
    expect(await usage(t)).toEqual(units(1));
    await walkEveryPath(t, vid);
    expect(await usage(t)).toEqual(units(1));
  }
  // The same person identified again, by another visitor: still paid for this month.
  const again = await identifyByHand(t, ada.email);
  expect((await detailsOf(t, again)).body).toMatchObject(ada.details);
  await deliveredDetails(again);
  expect(await usage(t)).toEqual(units(1));

  const bob = await importedPerson();
  const bobVid = await identifyByHand(t, bob.email);
  expect((await detailsOf(t, bobVid)).body).toMatchObject(bob.details);
  await walkEveryPath(t, bobVid);
  expect((await deliveredDetails(bobVid)).details).toEqual(bob.details);
  expect(await usage(t)).toEqual(units(2));
});

it('when a person was enriched through POST /visitors/enrichment this month, then showing them on every path bills nothing more', async () => {
  const t = await tenant(10);
  const { key } = await createTestApiKey(t.accountId, ['enrichment:read']);
  const cy = await importedPerson();
  const enriched = await request(`${stack.gateway.url}/visitors/enrichment`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ email: cy.email }),
  });
  expect(enriched.status).toBe(200);
  expect(await usage(t)).toEqual(units(1));

  const vid = await identifyByHand(t, cy.email);
  expect((await detailsOf(t, vid)).body).toMatchObject(cy.details);
  await walkEveryPath(t, vid);
  expect((await deliveredDetails(vid)).details).toEqual(cy.details);
  expect(await usage(t)).toEqual(units(1));
});

it('when the account is at its credit limit, then every path shows the visitor and the email it gave, never the fields, and its usage does not move', async () => {
  const t = await tenant(0);
  const dee = await importedPerson();
  const vid = await identifyByHand(t, dee.email);

  const delivered = await deliveredDetails(vid);
  expect(delivered.email).toBe(dee.email);
  expect(delivered.details).toEqual({});
  const details = await detailsOf(t, vid);
  expect(details.status).toBe(200);
  expect(details.body).toMatchObject({ email: dee.email, page_views: 1 });
  expect(details.headers.get('credits-remaining')).toBe('0');
  for (const field of ENRICHED) expect(details.body).not.toHaveProperty(field);

  const shown = await walkEveryPath(t, vid);
  expect(disclosesFields([...shown, delivered], dee.details)).toEqual([]);
  expect(await usage(t)).toEqual(units(0));
});
