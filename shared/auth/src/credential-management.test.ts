// The credential rules on an in-memory CredentialStore: the caps, the account check, the pruning
// of revoked credentials and revocation's answers, which only a Postgres test reached before.
import { randomUUID } from 'node:crypto';
import {
  apiKeyPage,
  createApiKey,
  createEventToken,
  credentialCaps,
  DEFAULT_CREDENTIAL_CAPS,
  revokeCredential,
  type ApiKeySummary,
  type CredentialStore,
  type CredentialTransaction,
} from './credential-management';
import { hashCredential, type CredentialKind } from './credentials';

interface StoredRow extends ApiKeySummary {
  kind: CredentialKind;
  accountId: string;
  hash: string;
}

/** Rows in memory; a transaction's writes are kept only when its work resolves. */
function memoryStore(accounts: string[]) {
  let rows: StoredRow[] = [];
  const calls: string[] = [];
  let clock = 0;
  const insert = (kind: CredentialKind, row: { accountId: string; prefix: string; hash: string; scopes?: string[] }, into: StoredRow[]) => {
    const created: StoredRow = { kind, id: randomUUID(), createdAt: new Date(++clock), lastUsedAt: null, revokedAt: null, scopes: [], ...row };
    into.push(created);
    return Promise.resolve({ id: created.id, createdAt: created.createdAt });
  };
  const store: CredentialStore = {
    async transaction(work) {
      const draft = rows.map((r) => ({ ...r }));
      const tx: CredentialTransaction = {
        lockAccount: async (accountId) => (calls.push(`lock ${accountId}`), accounts.includes(accountId)),
        countActive: async (kind, accountId) => draft.filter((r) => r.kind === kind && r.accountId === accountId && !r.revokedAt).length,
        insertEventToken: (row) => (calls.push('insert event_token'), insert('event_token', row, draft)),
        insertApiKey: (row) => (calls.push(`insert api_key ${row.scopes.join(',')}`), insert('api_key', row, draft)),
        async pruneRevoked(kind, accountId, keep) {
          calls.push(`prune ${kind} ${keep}`);
          const revoked = draft
            .filter((r) => r.kind === kind && r.accountId === accountId && r.revokedAt)
            .sort((a, b) => b.revokedAt!.getTime() - a.revokedAt!.getTime() || b.id.localeCompare(a.id));
          const gone = new Set(revoked.slice(keep));
          draft.splice(0, draft.length, ...draft.filter((r) => !gone.has(r)));
        },
      };
      const result = await work(tx);
      rows = draft;
      return result;
    },
    async revoke(kind, accountId, id, at) {
      const row = rows.find((r) => r.kind === kind && r.accountId === accountId && r.id === id && !r.revokedAt);
      if (row) row.revokedAt = at;
      return row !== undefined;
    },
    exists: async (kind, accountId, id) => rows.some((r) => r.kind === kind && r.accountId === accountId && r.id === id),
    eventTokens: async (accountId, page) =>
      newestFirst(
        rows.filter((r) => r.kind === 'event_token' && r.accountId === accountId),
        page,
      ),
    apiKeys: async (accountId, page) =>
      newestFirst(
        rows.filter((r) => r.kind === 'api_key' && r.accountId === accountId),
        page,
      ),
  };
  return { store, calls, rows: () => rows };
}

function newestFirst(rows: StoredRow[], page?: { take: number; after: { at: Date; id: string } | null }): StoredRow[] {
  const sorted = [...rows].sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime() || b.id.localeCompare(a.id));
  const after = page?.after;
  const rest = after ? sorted.filter((r) => r.createdAt < after.at || (r.createdAt.getTime() === after.at.getTime() && r.id < after.id)) : sorted;
  return page ? rest.slice(0, page.take) : rest;
}

const account = randomUUID();

describe('credential creation', () => {
  it('when a credential is created, then the account is locked first, the plain value is returned once and only its hash is stored, and the revoked ones are pruned in the same transaction', async () => {
    const { store, calls, rows } = memoryStore([account]);
    const created = await createApiKey(store, account, ['visitors:read']);
    expect(calls).toEqual([`lock ${account}`, 'insert api_key visitors:read', `prune api_key ${DEFAULT_CREDENTIAL_CAPS.revokedKept}`]);
    expect(created.secret.startsWith('glk_')).toBe(true);
    expect(created.prefix).toBe(created.secret.slice(0, 12));
    expect(rows()).toEqual([expect.objectContaining({ id: created.id, hash: hashCredential(created.secret), prefix: created.prefix })]);
    expect(JSON.stringify(rows())).not.toContain(created.secret);
  });

  it('when the account has its cap of active credentials of the kind, then 409 limit_reached and nothing is written; revoked ones and the other kind do not count', async () => {
    const { store, calls, rows } = memoryStore([account]);
    const caps = { eventTokensPerAccount: 2 };
    const first = await createEventToken(store, account, caps);
    await createEventToken(store, account, caps);
    await createApiKey(store, account, [], { apiKeysPerAccount: 1 });
    calls.length = 0;
    await expect(createEventToken(store, account, caps)).rejects.toMatchObject({
      code: 'limit_reached',
      message: 'an account has at most 2 active event tokens; revoke one first',
    });
    expect(calls).toEqual([`lock ${account}`]);
    await expect(createApiKey(store, account, [], { apiKeysPerAccount: 1 })).rejects.toThrow('an account has at most 1 active API keys; revoke one first');
    expect(rows()).toHaveLength(3);
    await revokeCredential(store, 'event_token', account, first.id);
    await expect(createEventToken(store, account, caps)).resolves.toMatchObject({ id: expect.any(String) });
  });

  it('when caps are given as undefined, then the defaults hold', () => {
    expect(credentialCaps({ eventTokensPerAccount: undefined, revokedKept: 3 })).toEqual({ ...DEFAULT_CREDENTIAL_CAPS, revokedKept: 3 });
  });

  it('when the account does not exist or its id is malformed, then 404 not_found, a malformed id without asking the store', async () => {
    const { store, calls } = memoryStore([account]);
    const other = randomUUID();
    await expect(createEventToken(store, other)).rejects.toMatchObject({ code: 'not_found', message: `account ${other} does not exist` });
    expect(calls).toEqual([`lock ${other}`]);
    calls.length = 0;
    await expect(createApiKey(store, 'nope', [])).rejects.toMatchObject({ code: 'not_found', message: 'account nope does not exist' });
    expect(calls).toEqual([]);
  });

  it('when more credentials are revoked than revokedKept, then a creation keeps only the most recently revoked ones', async () => {
    const { store, rows } = memoryStore([account]);
    const caps = { revokedKept: 2 };
    const made = [];
    for (let i = 0; i < 4; i++) made.push(await createEventToken(store, account, caps));
    for (const c of made) {
      await revokeCredential(store, 'event_token', account, c.id);
      await new Promise((r) => setTimeout(r, 2));
    }
    await createEventToken(store, account, caps);
    const left = rows().filter((r) => r.revokedAt);
    expect(left.map((r) => r.id).sort()).toEqual([made[2]!.id, made[3]!.id].sort());
  });
});

describe('revokeCredential', () => {
  it("when the id is another account's, unknown or malformed, then 404 and nothing is revoked; revoking twice is no error", async () => {
    const other = randomUUID();
    const { store, rows } = memoryStore([account, other]);
    const token = await createEventToken(store, account);
    await expect(revokeCredential(store, 'event_token', other, token.id)).rejects.toMatchObject({
      code: 'not_found',
      message: `event token ${token.id} does not exist in account ${other}`,
    });
    await expect(revokeCredential(store, 'api_key', account, token.id)).rejects.toThrow(`api key ${token.id} does not exist in account ${account}`);
    await expect(revokeCredential(store, 'event_token', account, 'x')).rejects.toMatchObject({ code: 'not_found' });
    expect(rows()[0]!.revokedAt).toBeNull();
    await revokeCredential(store, 'event_token', account, token.id);
    const revokedAt = rows()[0]!.revokedAt;
    expect(revokedAt).toBeInstanceOf(Date);
    await expect(revokeCredential(store, 'event_token', account, token.id)).resolves.toBeUndefined();
    expect(rows()[0]!.revokedAt).toBe(revokedAt);
  });
});

describe('credential pages', () => {
  it('when the list is longer than a page, then each page has `limit` items newest first and a cursor, the last page none', async () => {
    const { store } = memoryStore([account]);
    const made = [];
    for (let i = 0; i < 5; i++) made.push(await createApiKey(store, account, []));
    const first = await apiKeyPage(store, account, { limit: 2, after: null });
    expect(first.items.map((i) => i.id)).toEqual([made[4]!.id, made[3]!.id]);
    expect(first.next).toEqual({ at: made[3]!.createdAt, id: made[3]!.id });
    const second = await apiKeyPage(store, account, { limit: 2, after: first.next });
    expect(second.items.map((i) => i.id)).toEqual([made[2]!.id, made[1]!.id]);
    const last = await apiKeyPage(store, account, { limit: 2, after: second.next });
    expect(last).toEqual({ items: [expect.objectContaining({ id: made[0]!.id })], next: null });
  });
});
