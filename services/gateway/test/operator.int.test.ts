// The operator API: /operator on a real gateway with its real Postgres. The
// operator token is checked (401 without it or with another one, 429 once an address has spent its
// credential checks), the prefix does not exist without OPERATOR_TOKEN, the workflows add-on is
// granted and removed idempotently, and a removal reaches an event token already in use within the
// credential cache window. The configuration refuses a weak operator token in production.
import { randomBytes } from 'node:crypto';
import { createAccount } from '@glimpse/auth';
import { loadConfig, type RunningGateway } from '@glimpse/gateway';
import { closeTestDb, createTestAccount, postEvent, request, serviceEnv, startTestGateway, testDb, uniqueEmail } from '../../../test/support/stack';

/** The credential cache window of the gateway under test: a removal must take effect within it. */
const CACHE_MS = 400;
const TOKEN = randomBytes(32).toString('hex');

let gateway: RunningGateway;
let without: RunningGateway;
beforeAll(async () => {
  [gateway, without] = await Promise.all([
    startTestGateway({ OPERATOR_TOKEN: TOKEN, AUTH_CACHE_TTL_MS: String(CACHE_MS) }),
    startTestGateway({ OPERATOR_TOKEN: '' }),
  ]);
});
afterAll(async () => {
  await Promise.all([gateway?.stop(), without?.stop()]);
  await closeTestDb();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** One operator call; `token` null: no Authorization header. */
function operator(base: string, method: string, path: string, token: string | null = TOKEN) {
  return request(`${base}${path}`, { method, headers: token === null ? {} : { authorization: `Bearer ${token}` } });
}

describe('the operator credential', () => {
  it('without a token, or with another one, every operator path answers 401 and says nothing of the account', async () => {
    const { id } = await createAccount(testDb('identity'), 'operator auth test');
    for (const [method, path] of [
      ['GET', `/operator/accounts/${id}`],
      ['PUT', `/operator/accounts/${id}/addons/workflows`],
      ['DELETE', `/operator/accounts/${id}/addons/workflows`],
      ['GET', '/operator/nothing-here'],
    ]) {
      const missing = await operator(gateway.url, method!, path!, null);
      const wrong = await operator(gateway.url, method!, path!, randomBytes(32).toString('hex'));
      const almost = await operator(gateway.url, method!, path!, `${TOKEN.slice(0, -1)}x`);
      for (const res of [missing, wrong, almost]) {
        expect({ path, status: res.status, error: res.body.error }).toEqual({ path, status: 401, error: 'unauthorized' });
        expect(JSON.stringify(res.body)).not.toContain('operator auth test');
      }
    }
    // Nothing changed: the account still has the add-on the library gave it.
    expect((await testDb('identity').account.findUniqueOrThrow({ where: { id } })).workflows).toBe(true);
    // An account's own credentials are not operator tokens.
    const account = await createTestAccount('operator auth test');
    expect((await operator(gateway.url, 'GET', `/operator/accounts/${account.accountId}`, account.token)).status).toBe(401);
  });

  it('when OPERATOR_TOKEN is unset, then /operator does not exist (404), whatever the token', async () => {
    const { id } = await createAccount(testDb('identity'), 'operator absent test');
    for (const token of [null, TOKEN]) {
      const res = await operator(without.url, 'PUT', `/operator/accounts/${id}/addons/workflows`, token);
      expect([res.status, res.body.error]).toEqual([404, 'not_found']);
      expect((await operator(without.url, 'GET', `/operator/accounts/${id}`, token)).status).toBe(404);
    }
  });

  it('when an address keeps sending wrong tokens, then it is refused 429 with Retry-After, the right token too, until its budget refills', async () => {
    const limited = await startTestGateway({ OPERATOR_TOKEN: TOKEN, AUTH_LOOKUPS_PER_IP_BURST: '3', AUTH_LOOKUPS_PER_IP_PER_SECOND: '1' });
    try {
      const { id } = await createAccount(testDb('identity'), 'operator limit test');
      const path = `/operator/accounts/${id}`;
      const statuses = [];
      for (let i = 0; i < 3; i++) statuses.push((await operator(limited.url, 'GET', path, 'w'.repeat(40))).status);
      const refused = await operator(limited.url, 'GET', path, 'w'.repeat(40));
      const rightButRefused = await operator(limited.url, 'GET', path);
      expect([...statuses, refused.status, rightButRefused.status]).toEqual([401, 401, 401, 429, 429]);
      expect(refused.body.error).toBe('rate_limited');
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      await sleep(1100);
      expect((await operator(limited.url, 'GET', path)).status).toBe(200);
    } finally {
      await limited.stop();
    }
  });
});

describe('the workflows add-on through the operator API', () => {
  it('reads an account, removes and grants the add-on idempotently, and answers 404 and 400 as {error, message}', async () => {
    const { id } = await createAccount(testDb('identity'), 'operator round trip');
    const read = await operator(gateway.url, 'GET', `/operator/accounts/${id}`);
    expect(read.status).toBe(200);
    expect(read.body).toEqual({ id, name: 'operator round trip', addons: { workflows: true } });
    expect(read.headers.get('cache-control')).toBe('no-store');

    for (let i = 0; i < 2; i++) {
      const removed = await operator(gateway.url, 'DELETE', `/operator/accounts/${id}/addons/workflows`);
      expect([removed.status, removed.body]).toEqual([200, { id, name: 'operator round trip', addons: { workflows: false } }]);
      expect((await testDb('identity').account.findUniqueOrThrow({ where: { id } })).workflows).toBe(false);
    }
    for (let i = 0; i < 2; i++) {
      const granted = await operator(gateway.url, 'PUT', `/operator/accounts/${id.toUpperCase()}/addons/workflows`);
      expect([granted.status, granted.body.addons]).toEqual([200, { workflows: true }]);
      expect(granted.body.id).toBe(id);
    }
    expect((await operator(gateway.url, 'GET', `/operator/accounts/${id}`)).body.addons).toEqual({ workflows: true });

    const unknown = '00000000-0000-4000-8000-000000000000';
    for (const [method, path] of [
      ['GET', `/operator/accounts/${unknown}`],
      ['PUT', `/operator/accounts/${unknown}/addons/workflows`],
      ['DELETE', `/operator/accounts/${unknown}/addons/workflows`],
    ]) {
      const res = await operator(gateway.url, method!, path!);
      expect([res.status, res.body.error, typeof res.body.message]).toEqual([404, 'not_found', 'string']);
    }
    for (const [method, path] of [
      ['GET', '/operator/accounts/not-an-id'],
      ['PUT', '/operator/accounts/123/addons/workflows'],
      ['DELETE', '/operator/accounts/x/addons/workflows'],
    ]) {
      const res = await operator(gateway.url, method!, path!);
      expect([res.status, res.body.error, typeof res.body.message]).toEqual([400, 'invalid_request', 'string']);
    }
    // Another add-on, or another verb, is not an operation.
    expect((await operator(gateway.url, 'PUT', `/operator/accounts/${id}/addons/other`)).status).toBe(404);
  });

  it('when the operator removes the add-on, an event token already in use is refused 403 addon_required within the cache window; granted again, it works again', async () => {
    const account = await createTestAccount('operator removal test');
    // In use (and so in the credential cache) before the removal.
    expect((await postEvent(gateway.url, account.token, { event: 'signed_up', email: uniqueEmail() })).status).toBe(200);

    expect((await operator(gateway.url, 'DELETE', `/operator/accounts/${account.accountId}/addons/workflows`)).status).toBe(200);
    const removedAt = Date.now();
    await sleep(CACHE_MS + 50);
    const refused = await postEvent(gateway.url, account.token, { event: 'signed_up', email: uniqueEmail() });
    expect(Date.now() - removedAt).toBeLessThan(CACHE_MS + 1000);
    expect([refused.status, refused.body.error]).toEqual([403, 'addon_required']);
    expect(refused.body.message).toMatch(/workflows add-on/);

    expect((await operator(gateway.url, 'PUT', `/operator/accounts/${account.accountId}/addons/workflows`)).status).toBe(200);
    await sleep(CACHE_MS + 50);
    expect((await postEvent(gateway.url, account.token, { event: 'signed_up', email: uniqueEmail() })).status).toBe(200);
  });
});

describe('OPERATOR_TOKEN in the configuration', () => {
  const production = (overrides: Record<string, string>) =>
    serviceEnv('gateway', {
      NODE_ENV: 'production',
      INTERNAL_TOKEN: 'i'.repeat(16) + randomBytes(16).toString('hex'),
      LINK_TOKEN_SECRET: randomBytes(32).toString('hex'),
      ...overrides,
    });

  it('production refuses a short or weak operator token, naming the variable and never the token; unset or strong, it starts', () => {
    for (const weak of ['a'.repeat(64), 'abcd'.repeat(16), randomBytes(8).toString('hex')]) {
      let message = '';
      try {
        loadConfig(production({ OPERATOR_TOKEN: weak }));
      } catch (err) {
        message = (err as Error).message;
      }
      expect(message).toMatch(/OPERATOR_TOKEN must be at least 32 random characters/);
      expect(message).not.toContain(weak);
    }
    expect(loadConfig(production({})).OPERATOR_TOKEN).toBeUndefined();
    expect(loadConfig(production({ OPERATOR_TOKEN: '' })).OPERATOR_TOKEN).toBeUndefined();
    expect(loadConfig(production({ OPERATOR_TOKEN: TOKEN })).OPERATOR_TOKEN).toBe(TOKEN);
  });

  it('outside production a token of 16 characters is enough; a shorter one is refused everywhere', () => {
    expect(loadConfig(serviceEnv('gateway', { OPERATOR_TOKEN: 'local-operator-1' })).OPERATOR_TOKEN).toBe('local-operator-1');
    expect(() => loadConfig(serviceEnv('gateway', { OPERATOR_TOKEN: 'short' }))).toThrow(/OPERATOR_TOKEN must be at least 16 characters/);
  });
});
