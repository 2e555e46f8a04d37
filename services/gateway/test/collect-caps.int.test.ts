// The caps of POST /collect through the real gateway, Redis and Kafka: past a site's new visitors
// for the UTC day (its own new_visitors_per_day, else the gateway's default) a new browser gets no
// id and is counted cookieless, while known visitors and other sites go on; past an account's
// identifies for the minute, the extra identifies of a request are dropped before Kafka. Each
// refusal is counted in glimpse_collect_capped_total by reason.
import { TOPICS } from '@glimpse/messaging';
import { closeTestDb, request, startTestGateway, testSql, type HttpResult } from '../../../test/support/stack';
import { endOffsets, readTopic, type ReadMessage } from '../../../test/support/kafka-helpers';
import type { RunningGateway } from '../src/start';
import { createManager } from './management-helpers';

const ORIGIN = 'https://caps.example.test';
const BROWSER = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';
let gateway: RunningGateway;

beforeAll(async () => {
  gateway = await startTestGateway({ NEW_VISITORS_PER_SITE_PER_DAY: '1', COLLECT_IDENTIFIES_PER_ACCOUNT_PER_MINUTE: '2' });
});
afterAll(async () => {
  await gateway?.stop();
  await closeTestDb();
});

let seq = 0;
const id = (p: string) => `${p}_caps${(seq++).toString(36).padStart(5, '0')}`;
const pageview = () => ({ type: 'pageview', id: id('pv'), url: `${ORIGIN}/`, path: '/', title: 'Home' });
const identify = (email: string) => ({ type: 'identify', id: id('id'), email });

async function createSite(newVisitorsPerDay?: number): Promise<{ id: string; key: string; accountId: string }> {
  const manager = await createManager();
  const res = await fetch(`${gateway.url}/account/sites`, {
    method: 'POST',
    headers: { authorization: `Bearer ${manager.key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'Caps', origins: [ORIGIN] }),
  });
  expect(res.status).toBe(201);
  const site = (await res.json()) as { id: string; key: string };
  if (newVisitorsPerDay !== undefined)
    await testSql().$executeRawUnsafe(`UPDATE identity.sites SET new_visitors_per_day = $1 WHERE id = $2::uuid`, newVisitorsPerDay, site.id);
  return { ...site, accountId: manager.accountId };
}

const collect = (site: string, events: unknown[], { cookie, ip }: { cookie?: string; ip: string }): Promise<HttpResult> =>
  request(`${gateway.url}/collect`, {
    method: 'POST',
    headers: { 'content-type': 'text/plain;charset=UTF-8', 'user-agent': BROWSER, origin: ORIGIN, 'x-forwarded-for': ip, ...(cookie ? { cookie } : {}) },
    body: JSON.stringify({ site, events }),
  });

async function collectedOf(siteId: string, act: () => Promise<unknown>): Promise<ReadMessage[]> {
  const from = await endOffsets(TOPICS.visitorsCollected);
  await act();
  const to = await endOffsets(TOPICS.visitorsCollected);
  return (await readTopic(TOPICS.visitorsCollected, { from, to })).filter((m) => m.json?.siteId === siteId);
}

async function capped(reason: string): Promise<number> {
  const text = (await request(`${gateway.url}/metrics`)).body as string;
  const line = text.split('\n').find((l) => l.startsWith(`glimpse_collect_capped_total{reason="${reason}"}`));
  return line === undefined ? 0 : Number(line.slice(line.lastIndexOf(' ') + 1));
}

describe('the caps of POST /collect', () => {
  it("when a site has minted its new visitors for the day, then a new browser is counted cookieless without an id, a known visitor keeps its id, and the site's own cap overrides the default", async () => {
    const byDefault = await createSite();
    const own = await createSite(3);
    const refusedBefore = await capped('new_visitors_per_day');

    const first = await collect(byDefault.key, [pageview()], { ip: '192.0.2.10' });
    expect(first.body).toEqual({ vid: expect.stringMatching(/^[a-f0-9]{24}$/), accepted: 1 });
    let second!: HttpResult;
    const messages = await collectedOf(byDefault.id, async () => (second = await collect(byDefault.key, [pageview()], { ip: '192.0.2.11' })));
    expect(second.status).toBe(200);
    expect(second.body).toEqual({ vid: null, accepted: 1 });
    expect(second.headers.get('set-cookie')).toBeNull();
    expect(messages.map((m) => [m.json?.type, m.json?.cookieless])).toEqual([['pageview', true]]);
    // The first visitor, known by its cookie, is not new: it keeps its id.
    const back = await collect(byDefault.key, [pageview()], { ip: '192.0.2.10', cookie: `_glv=${first.body.vid}` });
    expect(back.body.vid).toBe(first.body.vid);

    const own3 = [];
    for (let i = 0; i < 4; i++) own3.push((await collect(own.key, [pageview()], { ip: `192.0.2.${20 + i}` })).body.vid);
    expect(own3.slice(0, 3).every((v) => typeof v === 'string')).toBe(true);
    expect(own3[3]).toBeNull();
    expect((await capped('new_visitors_per_day')) - refusedBefore).toBe(2);
  });

  it("when a request carries more identifies than the account's cap for the minute, then the extra ones are dropped before Kafka and counted; another account is unaffected", async () => {
    const site = await createSite();
    const other = await createSite();
    const before = await capped('identifies_per_minute');
    const visitor = (await collect(site.key, [pageview()], { ip: '198.51.100.1' })).body.vid as string;
    let res!: HttpResult;
    const messages = await collectedOf(site.id, async () => {
      res = await collect(site.key, [identify('a@example.com'), identify('b@example.com'), identify('c@example.com')], {
        ip: '198.51.100.1',
        cookie: `_glv=${visitor}`,
      });
    });
    expect(res.body).toEqual({ vid: visitor, accepted: 2 });
    expect(messages.map((m) => m.json?.email)).toEqual(['a@example.com', 'b@example.com']);
    expect((await capped('identifies_per_minute')) - before).toBe(1);

    const otherVisitor = (await collect(other.key, [pageview()], { ip: '198.51.100.2' })).body.vid as string;
    const fine = await collect(other.key, [identify('d@example.com'), identify('e@example.com')], { ip: '198.51.100.2', cookie: `_glv=${otherVisitor}` });
    expect(fine.body).toEqual({ vid: otherVisitor, accepted: 2 });
  });
});
