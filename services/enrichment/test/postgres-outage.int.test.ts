// The enrichment service and a Postgres that is not there: it starts anyway and stays up, unready,
// answering lookups 503 with Retry-After (never 500), and is ready and answering once Postgres is
// back; when Postgres goes away again it turns unready again. A private Postgres on its own port
// plays the database (the machine's shared one is never stopped).
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { INTERNAL_HEADERS } from '@glimpse/http';
import { migrate } from '@glimpse/db';
import { request, startTestEnrichmentService, waitFor, type HttpResult } from '../../../test/support/stack';
import { createPrivatePostgres, freePort, type PrivatePostgres } from '../../../test/support/private-postgres';
import { randomObjectId } from './lookup-test-helpers';

const TOKEN = `outage-test-${randomUUID()}`;
let postgres: PrivatePostgres;

// Migrated once before the service ever runs, then stopped: a connection the service opened between
// Postgres starting and a migration keeps the search_path from before it (ALTER DATABASE applies to
// new sessions), so a database migrated under a running service would fail its lookups with 500.
// Postgres going away and coming back, what this test is about, has no such gap.
beforeAll(async () => {
  postgres = createPrivatePostgres(await freePort());
  postgres.start();
  await migrate({ databaseUrl: postgres.url, migrationsDir: path.join(__dirname, '..', '..', '..', 'prisma', 'migrations') });
  postgres.stop();
});

afterAll(() => {
  postgres.destroy();
});

const internal = (base: string, path: string, init: RequestInit = {}): Promise<HttpResult> =>
  request(`${base}${path}`, {
    ...init,
    headers: { [INTERNAL_HEADERS.token]: TOKEN, [INTERNAL_HEADERS.account]: randomUUID(), 'content-type': 'application/json', ...(init.headers ?? {}) },
  });

function expectUnavailable(res: HttpResult): void {
  expect({ status: res.status, body: res.body }).toEqual({ status: 503, body: { error: 'service_unavailable', message: expect.any(String) } });
  expect(res.headers.get('retry-after')).toMatch(/^\d+$/);
}

it('when Postgres is down at start, then the service starts and stays up unready (lookups 503), and is ready and answering once Postgres is back', async () => {
  // No Kafka: the test is about Postgres alone.
  const service = await startTestEnrichmentService({
    DATABASE_URL: postgres.url,
    INTERNAL_TOKENS: `gateway=${TOKEN}`,
    KAFKA_BROKERS: `127.0.0.1:${await freePort()}`,
  });
  try {
    expect((await request(`${service.url}/healthz`)).status).toBe(200);
    const unready = await request(`${service.url}/readyz`);
    expect(unready.status).toBe(503);
    expect(JSON.stringify(unready.body)).toContain('postgres');
    expectUnavailable(await internal(service.url, `/internal/visitors/${randomObjectId()}/details`));
    expectUnavailable(await internal(service.url, '/internal/enrichment', { method: 'POST', body: JSON.stringify({ email: 'ada@example.com' }) }));
    expectUnavailable(await internal(service.url, '/internal/credits', { method: 'PUT', body: JSON.stringify({ credits: 3 }) }));
    expectUnavailable(await internal(service.url, '/internal/usage/totals'));

    postgres.start();

    await waitFor(async () => (await request(`${service.url}/readyz`)).status === 200, { what: 'ready after Postgres came back', timeoutMs: 20_000 });
    const missing = await internal(service.url, `/internal/visitors/${randomObjectId()}/details`);
    expect({ status: missing.status, error: missing.body.error }).toEqual({ status: 404, error: 'not_found' });
    const nobody = await internal(service.url, '/internal/enrichment', { method: 'POST', body: JSON.stringify({ email: 'nobody@example.com' }) });
    expect({ status: nobody.status, error: nobody.body.error }).toEqual({ status: 404, error: 'not_found' });

    postgres.stop();
    await waitFor(async () => (await request(`${service.url}/readyz`)).status === 503, { what: 'unready after Postgres went away', timeoutMs: 20_000 });
    expect((await request(`${service.url}/healthz`)).status).toBe(200);
    expectUnavailable(await internal(service.url, '/internal/enrichment', { method: 'POST', body: JSON.stringify({ email: 'ada@example.com' }) }));
  } finally {
    await service.stop();
  }
});
