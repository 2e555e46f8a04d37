// Accounts as the operator and the tests make them: creation and deletion (each writing its event
// of the account outbox with it), and whether one exists. Stored through an AccountStore
// (data/account-store.ts in Postgres; wiring.ts binds the two).
import { AppError } from '@glimpse/errors';
import { isUuid } from '@glimpse/validation';

export interface AccountStore {
  /** Inserts the account and its `account.created` outbox row in one transaction. */
  createAccount(name: string, workflows: boolean): Promise<{ id: string; name: string }>;
  /**
   * Deletes the account (its event tokens and API keys go with it) and writes `account.deleted`
   * at `at`, in one transaction; false, writing nothing, when there is no such account.
   */
  deleteAccount(accountId: string, at: Date): Promise<boolean>;
  accountExists(accountId: string): Promise<boolean>;
}

/**
 * Creates the account and its `account.created` outbox row in one transaction. `workflows`: the
 * workflows add-on (events, event tokens, playbooks, page rules). This library grants it unless
 * told not to (the tests, benches and the demo seed build on it); the operator's
 * `glimpse account create`, the one way an installation creates accounts, grants it only with
 * --workflows, and a row inserted any other way has none (the column's default).
 */
export async function createAccount(
  store: AccountStore,
  name: string,
  { workflows = true }: { workflows?: boolean } = {},
): Promise<{ id: string; name: string; workflows: boolean }> {
  const account = await store.createAccount(name, workflows);
  return { id: account.id, name: account.name, workflows };
}

/**
 * Deletes the account (its event tokens and API keys go with it) and writes `account.deleted` in
 * the same transaction; the other services drop their data of it when the event reaches them.
 */
export async function deleteAccount(store: AccountStore, id: string): Promise<{ id: string; deletedAt: Date }> {
  if (!isUuid(id)) throw new AppError('not_found', `account ${id} does not exist`);
  // The topic's key: one spelling per account, or compaction would keep both.
  const accountId = id.toLowerCase();
  const deletedAt = new Date();
  if (!(await store.deleteAccount(accountId, deletedAt))) throw new AppError('not_found', `account ${accountId} does not exist`);
  return { id: accountId, deletedAt };
}

/** Whether the account exists (a malformed id names none). */
export async function accountExists(store: AccountStore, accountId: string): Promise<boolean> {
  if (!isUuid(accountId)) return false;
  return store.accountExists(accountId);
}
