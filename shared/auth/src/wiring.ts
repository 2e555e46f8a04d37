// The domain bound to Postgres: each use case with its data layer's store, under the signatures the
// gateway, the CLI, the scripts and the tests call (a Db first, or { db } for the authenticator).
import type { Db } from '@glimpse/db/identity';
import * as accountEvents from './account-events.js';
import * as accounts from './accounts.js';
import * as addons from './addons.js';
import { createAuthenticatorOn, type Authenticator, type AuthenticatorSettings } from './authenticator.js';
import * as credentials from './credential-management.js';
import { createAccountEventOutbox } from './data/account-events.js';
import { createAccountStore } from './data/account-store.js';
import { createCredentialLookupStore } from './data/credential-lookup.js';
import { createCredentialStore } from './data/credential-store.js';

function withStore<S, R extends unknown[], T>(useCase: (store: S, ...rest: R) => T, storeOf: (db: Db) => S): (db: Db, ...rest: R) => T {
  return (db, ...rest) => useCase(storeOf(db), ...rest);
}

export interface AuthenticatorOptions extends AuthenticatorSettings {
  db: Db;
}

/** The authenticator reading the credentials in Postgres. */
export function createAuthenticator({ db, ...settings }: AuthenticatorOptions): Authenticator {
  return createAuthenticatorOn(createCredentialLookupStore(db), settings);
}

export const createAccount = withStore(accounts.createAccount, createAccountStore);
export const deleteAccount = withStore(accounts.deleteAccount, createAccountStore);
export const accountExists = withStore(accounts.accountExists, createAccountStore);

export const setWorkflowsAddon = withStore(addons.setWorkflowsAddon, createAccountStore);
export const accountAddons = withStore(addons.accountAddons, createAccountStore);

export const createEventToken = withStore(credentials.createEventToken, createCredentialStore);
export const createApiKey = withStore(credentials.createApiKey, createCredentialStore);
export const revokeCredential = withStore(credentials.revokeCredential, createCredentialStore);
export const listEventTokens = withStore(credentials.listEventTokens, createCredentialStore);
export const listApiKeys = withStore(credentials.listApiKeys, createCredentialStore);
export const eventTokenPage = withStore(credentials.eventTokenPage, createCredentialStore);
export const apiKeyPage = withStore(credentials.apiKeyPage, createCredentialStore);

/** (db, producer, options) as before. */
export const publishAccountEvents = withStore(accountEvents.publishAccountEvents, createAccountEventOutbox);
