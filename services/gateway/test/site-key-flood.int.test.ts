// Made-up site keys at POST /collect, against a private Postgres this test stops: 10,000 random
// keys from one address reach Postgres only as often as the address's budget of site-key look-ups
// allows (the rest are 429 with Retry-After), unknown keys from many addresses are cached apart
// from the real sites, and so the real site, cached before the flood, still collects (200) once
// Postgres is down. Look-ups that reached Postgres are counted by glimpse_site_key_lookups_total.
import { randomBytes } from 'node:crypto';
import { createAccount, createApiKey } from '@glimpse/auth';
import { createDb, type Db } from '@glimpse/db/identity';
import { request, startTestGateway, type HttpResult } from '../../../test/support/stack';
import { startPrivatePostgres, type PrivatePostgres } from '../../../test/support/private-postgres';
import type { RunningGateway } from '../src/start';

const ORIGIN = 'https://flood.example.test';
const BROWSER = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';
const BURST = 20;
const PER_SECOND = 1;

let pg: PrivatePostgres;
let db: Db;
let gateway: RunningGateway;

beforeAll(async () => {
  pg = await startPrivatePostgres();
  db = createDb({ databaseUrl: pg.url, poolSize: 2 });
  gateway = await startTestGateway({
    DATABASE_URL: pg.url,
    DB_CONNECT_TIMEOUT_MS: '500',
    // Short: every answer after the flood needs the stale-if-error rule.
    SITE_CACHE_TTL_MS: '200',
    SITE_CACHE_STALE_IF_ERROR_MS: '600000',
    // Fewer real sites than the made-up keys below: one shared LRU would lose the real one.
    SITE_CACHE_MAX_ENTRIES: '100',
    SITE_KEY_LOOKUPS_PER_IP_BURST: String(BURST),
    SITE_KEY_LOOKUPS_PER_IP_PER_SECOND: String(PER_SECOND),
    // The flood's real-site requests come from addresses of their own; keep the per-address request limit out of the way.
    COLLECT_RATE_LIMIT_PER_IP_PER_SECOND: '100000',
  });
}, 120_000);

afterAll(async () => {
  await gateway?.stop();
  await db?.$disconnect();
  pg?.destroy();
});

const madeUpKey = () => `glp_${randomBytes(24).toString('base64url')}`;
let seq = 0;
const pageview = () => ({ type: 'pageview', id: `pv_flood${(seq++).toString(36).padStart(6, '0')}`, url: `${ORIGIN}/`, path: '/', title: 'Home' });

const collectInit = (site: string, address: string): RequestInit => ({
  method: 'POST',
  headers: { 'content-type': 'text/plain;charset=UTF-8', 'user-agent': BROWSER, origin: ORIGIN, 'x-forwarded-for': address },
  body: JSON.stringify({ site, events: [pageview()] }),
});
const collect = (site: string, address: string): Promise<HttpResult> => request(`${gateway.url}/collect`, collectInit(site, address));
/** The flood's requests: only status and Retry-After are looked at (the answers' shapes are checked by `collect`). */
async function collectQuick(site: string, address: string): Promise<Pick<HttpResult, 'status' | 'headers'>> {
  const res = await fetch(`${gateway.url}/collect`, collectInit(site, address));
  await res.arrayBuffer();
  return { status: res.status, headers: res.headers };
}

async function metric(name: string, result: string): Promise<number> {
  const text = (await request(`${gateway.url}/metrics`)).body as string;
  const line = text.split('\n').find((l) => l.startsWith(`${name}{result="${result}"}`));
  return line === undefined ? 0 : Number(line.slice(line.lastIndexOf(' ') + 1));
}

/** Runs `count` calls, `width` at a time; the statuses counted. */
async function flood(count: number, width: number, call: (i: number) => Promise<Pick<HttpResult, 'status' | 'headers'>>): Promise<Map<number, number>> {
  const statuses = new Map<number, number>();
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < count) {
        const res = await call(next++);
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
        if (res.status === 429) expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      }
    }),
  );
  return statuses;
}

describe('made-up site keys at POST /collect', () => {
  it('when 10,000 unknown keys come beside a real site and then Postgres stops, then they cost a bounded number of queries and the real site still collects', async () => {
    const { id: accountId } = await createAccount(db, 'site key flood');
    const { secret: key } = await createApiKey(db, accountId, ['account:manage']);
    const created = await fetch(`${gateway.url}/account/sites`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Flood', origins: [ORIGIN] }),
    });
    expect(created.status).toBe(201);
    const realKey = ((await created.json()) as { key: string }).key;
    expect((await collect(realKey, '192.0.2.1')).status).toBe(200);

    // One address, 10,000 random keys.
    const started = Date.now();
    const fromOne = await flood(10_000, 50, () => collectQuick(madeUpKey(), '203.0.113.7'));
    const seconds = (Date.now() - started) / 1000;
    const budget = BURST + Math.ceil(seconds * PER_SECOND) + 1;
    expect((fromOne.get(401) ?? 0) + (fromOne.get(429) ?? 0)).toBe(10_000);
    expect(fromOne.get(401) ?? 0).toBeLessThanOrEqual(budget);
    expect(fromOne.get(429) ?? 0).toBeGreaterThanOrEqual(10_000 - budget);

    // 500 addresses, one unknown key each: each is a query, and each is cached apart from the real site.
    const fromMany = await flood(500, 4, (i) => collectQuick(madeUpKey(), `10.77.${Math.floor(i / 250)}.${i % 250}`));
    expect(Object.fromEntries(fromMany)).toEqual({ 401: 500 });

    const reachedPostgres = (await metric('glimpse_site_key_lookups_total', 'site')) + (await metric('glimpse_site_key_lookups_total', 'unknown'));
    expect(reachedPostgres).toBeLessThanOrEqual(budget + 500 + 1);
    expect(await metric('glimpse_site_key_lookups_total', 'refused')).toBe(fromOne.get(429));

    pg.stop('immediate');
    try {
      const during = await collect(realKey, '192.0.2.1');
      expect([during.status, during.body]).toEqual([200, expect.objectContaining({ accepted: 1 })]);
      // A key never seen is not vouched for: 503, not 401.
      expect((await collect(madeUpKey(), '192.0.2.2')).status).toBe(503);
    } finally {
      pg.start();
    }
  }, 180_000);
});
