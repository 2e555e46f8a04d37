// The account and add-on rules on an in-memory store: ids as the outbox keys them, and 404s.
import { randomUUID } from 'node:crypto';
import { accountExists, createAccount, deleteAccount, type AccountStore } from './accounts';
import { accountAddons, setWorkflowsAddon, type AddonStore } from './addons';

function memoryAccounts(ids: string[]) {
  const accounts = new Map(ids.map((id) => [id, { id, name: 'A', workflows: false }]));
  const calls: string[] = [];
  const store: AccountStore & AddonStore = {
    async createAccount(name, workflows) {
      const id = randomUUID();
      accounts.set(id, { id, name, workflows });
      return { id, name };
    },
    async deleteAccount(accountId, at) {
      calls.push(`delete ${accountId} ${at.toISOString()}`);
      return accounts.delete(accountId);
    },
    accountExists: async (accountId) => (calls.push(`exists ${accountId}`), accounts.has(accountId)),
    async setWorkflows(accountId, workflows) {
      calls.push(`workflows ${accountId}`);
      const account = accounts.get(accountId);
      if (account) account.workflows = workflows;
      return account !== undefined;
    },
    addons: async (accountId) => (calls.push(`addons ${accountId}`), accounts.get(accountId) ?? null),
  };
  return { store, calls, accounts };
}

describe('accounts', () => {
  it('when an account is created, then it has the workflows add-on unless told otherwise', async () => {
    const { store, accounts } = memoryAccounts([]);
    const granted = await createAccount(store, 'Granted');
    const without = await createAccount(store, 'Without', { workflows: false });
    expect(granted).toEqual({ id: granted.id, name: 'Granted', workflows: true });
    expect(accounts.get(without.id)?.workflows).toBe(false);
  });

  it('when an account is deleted by an id in capitals, then it is deleted and answered in lower case (the outbox key); a missing one is 404', async () => {
    const id = randomUUID();
    const { store, calls } = memoryAccounts([id]);
    const { id: deleted, deletedAt } = await deleteAccount(store, id.toUpperCase());
    expect(deleted).toBe(id);
    expect(calls).toEqual([`delete ${id} ${deletedAt.toISOString()}`]);
    await expect(deleteAccount(store, id)).rejects.toMatchObject({ code: 'not_found', message: `account ${id} does not exist` });
  });

  it('when an id is malformed, then the store is not asked: 404, or no account', async () => {
    const { store, calls } = memoryAccounts([]);
    await expect(deleteAccount(store, 'nope')).rejects.toMatchObject({ code: 'not_found', message: 'account nope does not exist' });
    await expect(setWorkflowsAddon(store, 'nope', true)).rejects.toMatchObject({ code: 'not_found' });
    expect(await accountExists(store, 'nope')).toBe(false);
    expect(await accountAddons(store, 'nope')).toBeNull();
    expect(calls).toEqual([]);
  });

  it('when the workflows add-on is set, then the answer is the state after it; a missing account is 404', async () => {
    const id = randomUUID();
    const { store, accounts } = memoryAccounts([id]);
    expect(await setWorkflowsAddon(store, id, true)).toEqual({ id, workflows: true });
    expect(accounts.get(id)?.workflows).toBe(true);
    expect(await accountAddons(store, id)).toEqual({ id, name: 'A', workflows: true });
    const missing = randomUUID();
    await expect(setWorkflowsAddon(store, missing, true)).rejects.toMatchObject({ code: 'not_found', message: `account ${missing} does not exist` });
    expect(await accountAddons(store, missing)).toBeNull();
  });
});
