// Postgres really goes away (a private cluster of this test's own, stopped and frozen by its pid):
// POST /events goes on for credentials the gateway has seen (Kafka is the durable record), an
// unknown credential and the management API answer 503 with Retry-After, never 500 or 401, and
// the gateway stays ready; a link page view counts its page view and identifies nobody (a token's
// revocations cannot be read). A Postgres that hangs costs a bounded wait, not a hung request.
import { createAccount, createApiKey, createEventToken, generateCredential } from '@glimpse/auth';
import { createDb, type Db } from '@glimpse/db/identity';
import { TOPICS } from '@glimpse/messaging';
import { postEvent, request, startTestEnrichmentService, startTestGateway, uniqueEmail, waitFor, type HttpResult } from '../../../test/support/stack';
import { endOffsets, ofAccount, readTopic } from '../../../test/support/kafka-helpers';
import type { RunningGateway } from '../src/start';
import { startPrivatePostgres, type PrivatePostgres } from '../../../test/support/private-postgres';
import { startTestVisitorsService } from '../../../test/support/visitors';

let pg: PrivatePostgres;
let db: Db;
const gateways: { stop(): Promise<void> }[] = [];

async function gatewayOn(overrides: Record<string, string>): Promise<RunningGateway> {
  const gateway = await startTestGateway({ DATABASE_URL: pg.url, AUTH_CACHE_TTL_MS: '200', DB_CONNECT_TIMEOUT_MS: '500', ...overrides });
  gateways.push(gateway);
  return gateway;
}

async function credentials() {
  const { id: accountId } = await createAccount(db, 'postgres outage');
  const { secret: token } = await createEventToken(db, accountId);
  const { secret: key } = await createApiKey(db, accountId, ['account:manage', 'visitors:read']);
  return { accountId, token, key };
}

/** A POST /events that gives up after 15 s: a hung request fails the test instead of hanging it. */
const postBounded = (url: string, token: string, body: unknown) =>
  request(`${url}/events`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(15_000),
  });

const listTokens = (url: string, key: string) => request(`${url}/account/event-tokens`, { headers: { authorization: `Bearer ${key}` } });
const readiness = async (url: string) => {
  const res = await fetch(`${url}/readyz`);
  return { status: res.status, text: await res.text() };
};

function expectUnavailable(res: HttpResult): void {
  expect(res.status).toBe(503);
  expect(res.body.error).toBe('service_unavailable');
  expect(res.headers.get('retry-after')).toBe('1');
}

beforeAll(async () => {
  pg = await startPrivatePostgres();
  db = createDb({ databaseUrl: pg.url, poolSize: 2 });
}, 120_000);

afterAll(async () => {
  await Promise.all(gateways.map((g) => g.stop()));
  await db?.$disconnect();
  pg?.destroy();
});

describe('the gateway while Postgres is down', () => {
  it('when Postgres is stopped, then known tokens keep posting events (all on Kafka), unknown ones and the management API get 503, and /readyz stays ready with a short reason', async () => {
    const { accountId, token, key } = await credentials();
    // Lookups go to an enrichment service and a visitors service on the same Postgres.
    const [enrichment, visitors] = await Promise.all([
      startTestEnrichmentService({ DATABASE_URL: pg.url }),
      startTestVisitorsService({ DATABASE_URL: pg.url }),
    ]);
    gateways.push(enrichment, visitors);
    const gateway = await gatewayOn({ AUTH_STALE_IF_ERROR_MS: '60000', ENRICHMENT_URL: enrichment.url, VISITORS_URL: visitors.url });
    const shortStale = await gatewayOn({ AUTH_STALE_IF_ERROR_MS: '300' });
    for (const g of [gateway, shortStale]) expect((await postEvent(g.url, token, { event: 'before_outage', email: uniqueEmail() })).status).toBe(200);
    expect((await listTokens(gateway.url, key)).status).toBe(200);
    const details = (url: string) => request(`${url}/visitors/${'ab'.repeat(12)}/details`, { headers: { authorization: `Bearer ${key}` } });
    expect((await details(gateway.url)).status).toBe(404);
    const from = await endOffsets(TOPICS.eventsInbound);

    pg.stop('immediate');
    try {
      const emails: string[] = [];
      // Well past the 200 ms cache time: every one of these needs the stale-if-error rule.
      for (let i = 0; i < 10; i++) {
        const email = uniqueEmail('outage');
        const res = await postEvent(gateway.url, token, { event: 'during_outage', email });
        expect([i, res.status]).toEqual([i, 200]);
        emails.push(email);
        await new Promise((r) => setTimeout(r, 100));
      }

      expectUnavailable(await postEvent(gateway.url, generateCredential('event_token').plain, { event: 'x', email: uniqueEmail() }));
      const management = await listTokens(gateway.url, key);
      expectUnavailable(management);
      expect(management.headers.get('ratelimit-limit')).toMatch(/^\d+$/);
      // The enrichment service's own Postgres failure comes through as its 503, with Retry-After.
      expectUnavailable(await details(gateway.url));

      const ready = await readiness(gateway.url);
      expect(ready.status).toBe(200);
      const checks = JSON.parse(ready.text).checks as Record<string, string>;
      expect(checks.kafka).toBe('ok');
      expect(checks.postgres).toMatch(/^degraded: (unreachable|connection refused|connection lost|unavailable|timed out)$/);
      expect(ready.text).not.toMatch(/Prisma|invocation|127\.0\.0\.1|ECONNREFUSED/);

      // Past its 300 ms stale window, the other gateway no longer vouches for the token.
      expectUnavailable(await postEvent(shortStale.url, token, { event: 'too_late', email: uniqueEmail() }));

      const written = await readTopic(TOPICS.eventsInbound, {
        from,
        until: (m) => ofAccount(m, accountId).filter((x) => x.json?.event === 'during_outage').length >= emails.length,
      });
      expect(
        ofAccount(written, accountId)
          .filter((m) => m.json?.event === 'during_outage')
          .map((m) => m.json.email)
          .sort(),
      ).toEqual([...emails].sort());
    } finally {
      pg.start();
    }

    // Back: a token created now (unknown to the gateway) works once the database answers again.
    const { secret: fresh } = await createEventToken(db, accountId);
    await waitFor(async () => (await postEvent(gateway.url, fresh, { event: 'after_outage', email: uniqueEmail() })).status === 200, {
      what: 'a new token to work after the restart',
      timeoutMs: 20_000,
    });
  }, 90_000);

  it('when Postgres hangs (its postmaster frozen), then an unknown credential is 503 after the connect timeout instead of a hung request, and a known one still posts', async () => {
    const { token } = await credentials();
    // No idle connections kept: every look-up needs a new connection, which the frozen postmaster never answers.
    const gateway = await gatewayOn({ AUTH_STALE_IF_ERROR_MS: '60000', DB_IDLE_TIMEOUT_MS: '50' });
    expect((await postEvent(gateway.url, token, { event: 'before_hang', email: uniqueEmail() })).status).toBe(200);
    await new Promise((r) => setTimeout(r, 300));

    pg.freeze();
    try {
      const unknown = await postBounded(gateway.url, generateCredential('event_token').plain, { event: 'x', email: uniqueEmail() });
      expectUnavailable(unknown);
      expect((await postBounded(gateway.url, token, { event: 'during_hang', email: uniqueEmail() })).status).toBe(200);
      const ready = await readiness(gateway.url);
      expect(ready.status).toBe(200);
      expect(JSON.parse(ready.text).checks.postgres).toMatch(/^degraded: /);
    } finally {
      pg.thaw();
    }
  }, 60_000);

  it('when Postgres is stopped, then a link page view still counts its page view but identifies nobody (revocations cannot be read)', async () => {
    const { key } = await credentials();
    const gateway = await gatewayOn({});
    const origin = 'https://outage-links.example.test';
    const manage = (method: string, path: string, body?: unknown) =>
      request(`${gateway.url}${path}`, {
        method,
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
    const site = (await manage('POST', '/account/sites', { name: 'Outage', origins: [origin] })).body as { id: string; key: string };
    const { token } = (await manage('POST', '/account/link-tokens', { email: 'outage.link@example.com' })).body as { token: string };
    const follow = (events: unknown[]) =>
      request(`${gateway.url}/collect`, {
        method: 'POST',
        headers: { 'content-type': 'text/plain', origin, 'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) Chrome/131.0.0.0' },
        body: JSON.stringify({ site: site.key, events }),
      });
    // The site is in the gateway's cache (it keeps collecting while Postgres is down); the token's revocation state is not.
    expect((await follow([{ type: 'pageview', id: 'outage-pv-0', path: '/' }])).status).toBe(200);
    const from = await endOffsets(TOPICS.visitorsCollected);

    pg.stop('immediate');
    try {
      const res = await follow([
        { type: 'pageview', id: 'outage-pv-1', path: '/offer' },
        { type: 'link', id: 'outage-ln-1', token, path: '/offer' },
      ]);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ accepted: 1 });
      const to = await endOffsets(TOPICS.visitorsCollected);
      const written = (await readTopic(TOPICS.visitorsCollected, { from, to })).filter((m) => m.json?.siteId === site.id);
      expect(written.map((m) => m.json?.type)).toEqual(['pageview']);
    } finally {
      pg.start();
    }
  }, 60_000);
});
