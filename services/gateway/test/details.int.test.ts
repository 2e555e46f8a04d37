// The details lookup of a visitor the site tag has seen, end to end: page views and identify
// through POST /collect, the visitors service consuming them from Kafka, the gateway composing its
// answer with the person's fields from enrichment; and erasure reaching the visitors service.
import { generatePerson, importPersons, normalizeRecord, toVisitorDetails } from '@glimpse/enrichment';
import { closeTestDb, request, startManagementStack, startTestGateway, testDb, waitFor, type HttpResult } from '../../../test/support/stack';
import { api, createManager } from './management-helpers';

let stack: Awaited<ReturnType<typeof startManagementStack>>;
beforeAll(async () => {
  stack = await startManagementStack({}, { webhooks: true });
});
afterAll(async () => {
  await stack?.stop();
  await closeTestDb();
});

const ORIGIN = 'https://details.example.test';
let n = 0;
const id = (p: string) => `${p}_${Date.now().toString(36)}${(n++).toString(36).padStart(4, '0')}`;

async function setUp() {
  const manager = await createManager(['account:manage', 'visitors:read']);
  const site = (await api(stack.gateway.url, manager.key).post('/account/sites', { name: 'Details', origins: [ORIGIN] })).body as { id: string; key: string };
  const collect = (events: unknown[], vid?: string) =>
    request(`${stack.gateway.url}/collect`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain;charset=UTF-8', origin: ORIGIN, 'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) Chrome/131.0.0.0 Safari/537.36' },
      body: JSON.stringify({ site: site.key, ...(vid ? { vid } : {}), events }),
    });
  const details = (vid: string) => request(`${stack.gateway.url}/visitors/${vid}/details`, { headers: { authorization: `Bearer ${manager.key}` } });
  return { manager, site, collect, details };
}

const pageview = (path: string) => ({ type: 'pageview', id: id('pv'), url: `${ORIGIN}${path}?q=1`, path, title: path });

describe('details of a visitor seen by the tag', () => {
  it('when an unidentified visitor viewed pages, then the details are its page-view fields only', async () => {
    const { collect, details } = await setUp();
    const first = await collect([pageview('/'), pageview('/pricing')]);
    const vid = first.body.vid as string;
    const res = await waitFor(
      async () => {
        const r = await details(vid);
        return r.status === 200 && r.body.page_views === 2 ? r : undefined;
      },
      { what: 'the page views applied' },
    );
    expect(res.body).toEqual({
      page_views: 2,
      sessions: 1,
      first_seen: expect.any(String),
      last_seen: expect.any(String),
      last_page: '/pricing',
      engaged_seconds: 0,
      // Beyond the seven fields: the intent score with the default weights, a session 3 points and a page view 1.
      intent: {
        score: 5,
        reasons: [
          { reason: '1 session', points: 3, at: expect.any(String) },
          { reason: '2 page views', points: 2, at: expect.any(String) },
        ],
      },
    });
  });

  it("when a visitor identifies as a known person, then the details are the person's fields and the page-view fields with identified_by; erasing the person deletes the link and the visitor", async () => {
    const { collect, details, manager } = await setUp();
    const person = generatePerson(0, Math.floor(Math.random() * 1e9));
    await importPersons(
      (async function* () {
        yield JSON.stringify(person);
      })(),
      { db: testDb('enrichment'), defaultPhoneRegion: 'US' },
    );
    const email = person.traits.work_email as string;
    const view = pageview('/signup');
    const vid = (await collect([view])).body.vid as string;
    await collect(
      [
        { type: 'engagement', id: id('en'), pageViewId: view.id, seconds: 21 },
        { type: 'identify', id: id('id'), email: email.toUpperCase(), path: '/signup' },
      ],
      vid,
    );

    const res = await waitFor(
      async () => {
        const r = await details(vid);
        return r.status === 200 && r.body.identified_by ? r : undefined;
      },
      { what: 'the identify applied' },
    );
    // The seven api.md §2.1 fields by enrichment's own rules for the person.
    const personFields = toVisitorDetails(normalizeRecord(person));
    expect(res.body).toEqual({
      ...personFields,
      page_views: 1,
      sessions: 1,
      first_seen: expect.any(String),
      last_seen: expect.any(String),
      last_page: '/signup',
      engaged_seconds: 21,
      // A session 3, a page view 1; 21 engaged seconds are 0.35 of a minute's point, rounded away.
      intent: {
        score: 4,
        reasons: [
          { reason: '1 session', points: 3, at: expect.any(String) },
          { reason: '1 page view', points: 1, at: expect.any(String) },
        ],
      },
      // The site does not verify identity: the identify is a claim.
      identified_by: { method: 'identify', at: expect.any(String), confidence: 0.7, verified: false },
      // The person's work domain: the persons import made its company record.
      company_profile: expect.objectContaining({ domain: email.slice(email.indexOf('@') + 1).toLowerCase() }),
    });
    expect(res.body.email).toBe(email.toLowerCase());
    expect(res.body.name).toEqual(expect.any(String));

    const erased = await api(stack.gateway.url, manager.key).del(`/account/persons/${encodeURIComponent(email)}`);
    expect(erased.status).toBe(200);
    expect(erased.body).toMatchObject({ deletedVisitors: 1, deletedVisitorLinks: 1 });
    // The aggregates of every visitor ever tied to the person are gone with the link.
    const after: HttpResult = await details(vid);
    expect(after.status).toBe(404);
  });

  it('when nobody has seen the id, then it is 404', async () => {
    const { details } = await setUp();
    const res = await details('0123456789abcdef01234567');
    expect(res.status).toBe(404);
  });

  it('when the visitors service cannot be reached, then an id enrichment does not know is 503 with Retry-After, not 404', async () => {
    const gateway = await startTestGateway({ ENRICHMENT_URL: stack.enrichment.url, VISITORS_URL: 'http://127.0.0.1:9' });
    try {
      const { key } = await createManager(['visitors:read']);
      const res = await request(`${gateway.url}/visitors/0123456789abcdef01234567/details`, { headers: { authorization: `Bearer ${key}` } });
      expect(res.status).toBe(503);
      expect(res.headers.get('retry-after')).toBe('1');
    } finally {
      await gateway.stop();
    }
  });
});
