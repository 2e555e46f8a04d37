// The workflows add-on of an account: event posting (POST /events and /events/batch), event
// tokens, playbooks and page rules belong to it. The operator sets it (`glimpse account
// workflows`); the authenticator reads it with each credential and caches it with the credential,
// so a removal takes effect within the credential cache window (AUTH_CACHE_TTL_MS) everywhere.
// Stored through an AddonStore (data/account-store.ts in Postgres; wiring.ts binds the two).
import { AppError } from '@glimpse/errors';
import { isUuid } from '@glimpse/validation';

export const WORKFLOWS_ADDON = 'workflows';

export interface AddonStore {
  /** Sets the account's workflows add-on; false when there is no such account. */
  setWorkflows(accountId: string, workflows: boolean): Promise<boolean>;
  /** The account's name and add-ons, or null when there is no such account. */
  addons(accountId: string): Promise<{ id: string; name: string; workflows: boolean } | null>;
}

/** The 403 of an endpoint of the workflows add-on for an account without it. */
export function workflowsAddonRequired(): AppError {
  return new AppError(
    'addon_required',
    'this account does not have the workflows add-on (event posting, event tokens, playbooks and page rules); ask your Glimpse operator to enable it',
  );
}

/** Grants or removes the account's workflows add-on; returns the account's state after the change. */
export async function setWorkflowsAddon(store: AddonStore, id: string, workflows: boolean): Promise<{ id: string; workflows: boolean }> {
  if (!isUuid(id)) throw new AppError('not_found', `account ${id} does not exist`);
  if (!(await store.setWorkflows(id, workflows))) throw new AppError('not_found', `account ${id} does not exist`);
  return { id: id.toLowerCase(), workflows };
}

/** The account's add-ons, or null when there is no such account. */
export async function accountAddons(store: AddonStore, id: string): Promise<{ id: string; name: string; workflows: boolean } | null> {
  if (!isUuid(id)) return null;
  return store.addons(id);
}
