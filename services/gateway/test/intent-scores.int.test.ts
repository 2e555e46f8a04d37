// Intent scores end to end: page views and identifies posted to /collect go through Kafka to the
// real visitors service, whose apply scores them; the visitor's and its company's score and reasons
// are read through the gateway (details lookup, visitors list sorted by score, the companies view and
// one company), and a change of weights (a page rule's, the account's) is re-scored by the
// background re-scorer.
import { randomBytes } from 'node:crypto';
import type { RunningVisitorsService } from '@glimpse/visitors';
import { closeTestDb, request, startTestEnrichmentService, startTestGateway, waitFor } from '../../../test/support/stack';
import { startTestVisitorsService } from '../../../test/support/visitors';
import { api, createManager } from './management-helpers';

const ORIGIN = 'https://intent.example.test';
const DOMAIN = `intent-${randomBytes(4).toString('hex')}.example`;
const DESKTOP = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36';

let visitors: RunningVisitorsService;
let enrichment: Awaited<ReturnType<typeof startTestEnrichmentService>>;
let gateway: Awaited<ReturnType<typeof startTestGateway>>;

beforeAll(async () => {
  [visitors, enrichment] = await Promise.all([
    startTestVisitorsService({ COMPANIES_VIEW_CACHE_SECONDS: '0', VISITORS_INTENT_RESCORE_INTERVAL_MS: '300' }),
    startTestEnrichmentService(),
  ]);
  gateway = await startTestGateway({ VISITORS_URL: visitors.url, ENRICHMENT_URL: enrichment.url });
});

afterAll(async () => {
  await gateway?.stop();
  await Promise.all([visitors?.stop(), enrichment?.stop()]);
  await closeTestDb();
});

let n = 0;
const id = (prefix: string) => `${prefix}_${Date.now().toString(36)}${(n++).toString(36).padStart(4, '0')}`;

/** Page views (then an identify) of one browser, posted as the tag posts them; answers its visitor id. */
async function visit(siteKey: string, paths: string[], email: string): Promise<string> {
  let vid: string | undefined;
  const events: Record<string, unknown>[] = [
    ...paths.map((p) => ({ type: 'pageview', id: id('pv'), path: p, title: p })),
    { type: 'identify', id: id('id'), email, path: paths.at(-1) },
  ];
  for (const event of events) {
    const sent = await request(`${gateway.url}/collect`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain', origin: ORIGIN, 'user-agent': DESKTOP },
      body: JSON.stringify({ site: siteKey, ...(vid ? { vid } : {}), events: [event] }),
    });
    expect(sent.status).toBe(200);
    vid = sent.body.vid as string;
  }
  return vid!;
}

type Intent = { score: number; reasons: { reason: string; points: number; at: string }[] };
const total = (i: Intent) => i.reasons.reduce((s, r) => s + r.points, 0);
const byReason = (i: Intent) => Object.fromEntries(i.reasons.map((r) => [r.reason, r.points]));

it('when page views arrive, then the visitor and its company are scored with their reasons; when weights change, then they are re-scored', async () => {
  const manager = await createManager(['account:manage', 'visitors:read']);
  const client = api(gateway.url, manager.key);
  const site = (await client.post('/account/sites', { name: 'Intent', origins: [ORIGIN] })).body as { id: string; key: string };
  // A rule that only scores: 20 points for a pricing page, once per session.
  const rule = await client.post('/account/page-rules', { pattern: '/pricing*', weight: 20 });
  expect(rule.status).toBe(201);
  expect(rule.body).toMatchObject({ event: null, weight: 20 });

  const ann = await visit(site.key, ['/pricing', '/pricing/teams', '/docs'], `ann@${DOMAIN}`);
  const bob = await visit(site.key, ['/pricing'], `bob@${DOMAIN}`);
  for (const v of [ann, bob]) {
    await waitFor(async () => (await client.get(`/visitors/${v}/details`)).body?.email !== undefined, { what: `the visit of ${v} applied` });
  }

  // Ann: 3 page views (1 each), 1 session (3), /pricing* once this session (20): 26, decayed by seconds.
  const details = (await client.get(`/visitors/${ann}/details`)).body as { intent: Intent; email: string };
  expect(details.email).toBe(`ann@${DOMAIN}`);
  expect(details.intent.score).toBe(26);
  expect(byReason(details.intent)).toEqual({ 'Visited /pricing* (page rule)': 20, '1 session': 3, '3 page views': 3 });
  expect(details.intent.reasons[0]!.reason).toBe('Visited /pricing* (page rule)');

  // The list by score: Ann (26) before Bob (1 + 3 + 20 = 24), each with its reasons, one per page with a cursor.
  const first = await client.get('/account/visitors?sort=score&limit=1');
  expect(first.status).toBe(200);
  expect(first.body.items.map((v: { id: string }) => v.id)).toEqual([ann]);
  const second = await client.get(`/account/visitors?sort=score&limit=1&cursor=${first.body.nextCursor}`);
  expect(second.body.items.map((v: { id: string }) => v.id)).toEqual([bob]);
  expect((second.body.items[0] as { intent: Intent }).intent.score).toBe(24);
  const record = (await client.get(`/account/visitors/${ann}`)).body as { intent: Intent };
  expect(record.intent).toEqual(details.intent);

  // The company: its visitors' scores added (50), their reasons merged by reason.
  const companies = await client.get('/account/companies?sort=score');
  expect(companies.status).toBe(200);
  const company = (companies.body.items as { key: string; intent: Intent }[]).find((c) => c.key === DOMAIN)!;
  expect(company.intent.score).toBe(50);
  expect(total(company.intent)).toBe(50);
  expect(byReason(company.intent)).toEqual({ 'Visited /pricing* (page rule)': 40, '2 sessions': 6, '4 page views': 4 });
  const one = await client.get(`/account/companies/${DOMAIN}`);
  expect(one.status).toBe(200);
  expect(one.body.intent).toEqual(company.intent);

  // Weights change: the rule is worth 50, a session nothing. The re-scorer recomputes the stored contributions.
  expect((await client.patch(`/account/page-rules/${rule.body.id}`, { weight: 50 })).body).toMatchObject({ weight: 50 });
  const put = await request(`${gateway.url}/account/intent`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${manager.key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ session_weight: 0 }),
  });
  expect(put.status).toBe(200);
  expect(put.body).toMatchObject({ half_life_days: 7, page_view_weight: 1, session_weight: 0, engaged_minute_weight: 1, event_weights: {} });
  await waitFor(async () => ((await client.get(`/visitors/${ann}/details`)).body as { intent: Intent }).intent.score === 53, {
    what: "Ann's score re-scored to 3 + 50",
  });
  const after = (await client.get(`/visitors/${ann}/details`)).body as { intent: Intent };
  expect(byReason(after.intent)).toEqual({ 'Visited /pricing* (page rule)': 50, '3 page views': 3 });
  const settings = await client.get('/account/intent');
  expect(Date.parse(settings.body.rescored_at as string)).toBeGreaterThanOrEqual(Date.parse(settings.body.updated_at as string));
  const rescored = (await client.get(`/account/companies/${DOMAIN}`)).body as { intent: Intent };
  expect(byReason(rescored.intent)).toEqual({ 'Visited /pricing* (page rule)': 100 - 4, '4 page views': 4 });

  // Bad weights are refused.
  const bad = await request(`${gateway.url}/account/intent`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${manager.key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ half_life_days: 0.1 }),
  });
  expect(bad.status).toBe(400);
  expect(bad.body).toMatchObject({ error: 'invalid_request', message: expect.stringMatching(/half_life_days/) });
  expect((await client.post('/account/page-rules', { pattern: '/nothing*' })).status).toBe(400);
}, 120_000);
