import { createAuthenticatorOn, type AuthenticatorSettings, type AuthOutcome, type CredentialLookupStore, type Principal } from './authenticator';
import { generateCredential } from './credentials';

interface Row {
  id: string;
  accountId: string;
  hash: string;
  revokedAt: Date | null;
  account: { workflows: boolean };
}

/** Postgres unreachable, as Prisma reports it through the pg adapter. */
const unreachable = () => Object.assign(new Error("Can't reach database server"), { name: 'PrismaClientKnownRequestError', code: 'P1001' });

/** The authenticator's store over event token rows: counted reads, touches recorded, a switch to make it fail or hang. */
function tokenStore(rows: Row[]) {
  const state = { reads: 0, down: false, hang: false, touched: [] as string[] };
  const store: CredentialLookupStore = {
    async lookup(kind, hash) {
      state.reads += 1;
      await new Promise((r) => setTimeout(r, 5));
      if (state.hang) await new Promise(() => undefined);
      if (state.down) throw unreachable();
      const row = rows.find((r) => r.hash === hash);
      return row && !row.revokedAt ? { accountId: row.accountId, credentialId: row.id, kind, scopes: [], workflows: row.account.workflows } : null;
    },
    touch: (principal: Principal) => void state.touched.push(principal.credentialId),
  };
  return { store, state };
}

const createAuthenticator = ({ store, ...settings }: AuthenticatorSettings & { store: CredentialLookupStore }) => createAuthenticatorOn(store, settings);

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const bearer = (plain: string) => `Bearer ${plain}`;
const eventToken = { kind: 'event_token' } as const;

function tokenRow(accountNo: number): { plain: string; row: Row } {
  const token = generateCredential('event_token');
  return {
    plain: token.plain,
    row: {
      id: `0d8c4a9e-51a2-4c3e-9c1f-6f1d2a3b4c${String(accountNo).padStart(2, '0')}`,
      accountId: `a1b2c3d4-0000-4000-8000-0000000000${String(accountNo).padStart(2, '0')}`,
      hash: token.hash,
      revokedAt: null,
      account: { workflows: true },
    },
  };
}

describe('authenticator cache', () => {
  const { plain, row } = tokenRow(1);

  it('when many requests with one token arrive at once, then the database is read once', async () => {
    const { store, state } = tokenStore([row]);
    const auth = createAuthenticator({ store, cacheTtlMs: 60_000 });
    const principals = await Promise.all(Array.from({ length: 20 }, () => auth.authenticate(bearer(plain), eventToken)));
    expect(principals.every((p) => p.accountId === row.accountId)).toBe(true);
    expect(state.reads).toBe(1);
    expect(state.touched).toEqual([row.id]);
  });

  it('when the workflows add-on is removed, then it is seen with the credential once the cache time has passed, with no query of its own', async () => {
    const stored = { ...row, account: { workflows: true } };
    const { store, state } = tokenStore([stored]);
    const auth = createAuthenticator({ store, cacheTtlMs: 20 });
    expect((await auth.authenticate(bearer(plain), eventToken)).workflows).toBe(true);
    stored.account.workflows = false;
    expect((await auth.authenticate(bearer(plain), eventToken)).workflows).toBe(true); // cached
    expect(state.reads).toBe(1);
    await sleep(30);
    expect((await auth.authenticate(bearer(plain), eventToken)).workflows).toBe(false);
    expect(state.reads).toBe(2);
  });

  it('when the cache time has passed, then a revocation is seen', async () => {
    const stored = { ...row };
    const { store } = tokenStore([stored]);
    const auth = createAuthenticator({ store, cacheTtlMs: 20 });
    await auth.authenticate(bearer(plain), eventToken);
    stored.revokedAt = new Date();
    await sleep(30);
    await expect(auth.authenticate(bearer(plain), eventToken)).rejects.toMatchObject({ code: 'unauthorized' });
  });

  it('when the database fails after a token was seen, then the token keeps working until the stale window ends, then 503', async () => {
    const { store, state } = tokenStore([row]);
    const outcomes: AuthOutcome[] = [];
    const auth = createAuthenticator({ store, cacheTtlMs: 10, staleIfErrorMs: 150, dbRetryMs: 20, observe: (o) => outcomes.push(o) });
    await auth.authenticate(bearer(plain), eventToken);
    state.down = true;
    await sleep(20);
    expect((await auth.authenticate(bearer(plain), eventToken)).accountId).toBe(row.accountId);
    expect(outcomes).toContain('stale_served');
    await sleep(180);
    await expect(auth.authenticate(bearer(plain), eventToken)).rejects.toMatchObject({
      code: 'service_unavailable',
      status: 503,
      headers: { 'Retry-After': '1' },
    });
  });

  it('when the database hangs after having failed, then a known token is answered from the cache at once, not after the hung query', async () => {
    const { store, state } = tokenStore([row]);
    const auth = createAuthenticator({ store, cacheTtlMs: 10, staleIfErrorMs: 60_000, dbRetryMs: 20 });
    await auth.authenticate(bearer(plain), eventToken);
    state.down = true;
    await sleep(15);
    await auth.authenticate(bearer(plain), eventToken); // the failure is seen (served stale)
    state.hang = true;
    await sleep(30);
    const answer = await Promise.race([auth.authenticate(bearer(plain), eventToken), sleep(1000).then(() => 'waited on the hung query')]);
    expect(answer).toMatchObject({ accountId: row.accountId });
  });

  it('when the database fails, then an unknown token is 503 (not 401), and the database is not asked again within the retry pause', async () => {
    const { store, state } = tokenStore([row]);
    const auth = createAuthenticator({ store, dbRetryMs: 10_000 });
    state.down = true;
    const other = tokenRow(2).plain;
    await expect(auth.authenticate(bearer(other), eventToken)).rejects.toMatchObject({ status: 503 });
    const readsAfterFirst = state.reads;
    await expect(auth.authenticate(bearer(tokenRow(3).plain), eventToken)).rejects.toMatchObject({ status: 503 });
    expect(state.reads).toBe(readsAfterFirst);
  });

  it('when the same made-up token is sent again and again, then the database is asked once', async () => {
    const { store, state } = tokenStore([row]);
    const auth = createAuthenticator({ store, negativeTtlMs: 60_000 });
    const madeUp = tokenRow(4).plain;
    for (let i = 0; i < 5; i++) await expect(auth.authenticate(bearer(madeUp), eventToken)).rejects.toMatchObject({ code: 'unauthorized' });
    expect(state.reads).toBe(1);
  });

  it('when look-ups are not admitted for an address, then an unknown token is 429 with Retry-After and never reaches the database, while a known one still works', async () => {
    const { store, state } = tokenStore([row]);
    const seen: (string | undefined)[] = [];
    let allowed = true;
    const auth = createAuthenticator({ store, cacheTtlMs: 60_000, admitLookup: (ip) => (seen.push(ip), { allowed, retryAfterSeconds: 3 }) });
    await auth.authenticate(bearer(plain), eventToken, { ip: '203.0.113.9' });
    allowed = false;
    const reads = state.reads;
    await expect(auth.authenticate(bearer(tokenRow(5).plain), eventToken, { ip: '203.0.113.9' })).rejects.toMatchObject({
      status: 429,
      headers: { 'Retry-After': '3' },
    });
    expect(state.reads).toBe(reads);
    expect((await auth.authenticate(bearer(plain), eventToken, { ip: '203.0.113.9' })).accountId).toBe(row.accountId);
    expect(seen).toEqual(['203.0.113.9', '203.0.113.9']);
  });

  it('when more tokens are used than the cache holds, then the least recently used one is dropped and the others stay cached', async () => {
    const tokens = [1, 2, 3].map(tokenRow);
    const { store, state } = tokenStore(tokens.map((t) => t.row));
    const auth = createAuthenticator({ store, cacheTtlMs: 60_000, maxEntries: 2 });
    await auth.authenticate(bearer(tokens[0]!.plain), eventToken);
    await auth.authenticate(bearer(tokens[1]!.plain), eventToken);
    await auth.authenticate(bearer(tokens[0]!.plain), eventToken); // 0 is now the most recent
    await auth.authenticate(bearer(tokens[2]!.plain), eventToken); // evicts 1
    const reads = state.reads;
    await auth.authenticate(bearer(tokens[0]!.plain), eventToken);
    await auth.authenticate(bearer(tokens[2]!.plain), eventToken);
    expect(state.reads).toBe(reads);
    await auth.authenticate(bearer(tokens[1]!.plain), eventToken);
    expect(state.reads).toBe(reads + 1);
  });
});
