// @glimpse/auth: the domain (credential formats and checks, the caching authenticator, credential
// and account management, the account outbox's publishing) in the files of src/, its Postgres
// access in src/data/, bound together in src/wiring.ts.
export * from './credentials.js';
export { createAuthenticator } from './wiring.js';
export type { AuthenticatorOptions } from './wiring.js';
export type { Authenticator, AuthOutcome, LookupAdmission, Principal } from './authenticator.js';
export {
  accountExists,
  createAccount,
  deleteAccount,
  createEventToken,
  createApiKey,
  revokeCredential,
  listEventTokens,
  listApiKeys,
  eventTokenPage,
  apiKeyPage,
  publishAccountEvents,
  setWorkflowsAddon,
  accountAddons,
} from './wiring.js';
export { DEFAULT_CREDENTIAL_CAPS } from './credential-management.js';
export type { CreatedCredential, EventTokenSummary, ApiKeySummary, CredentialCaps, CredentialPageQuery, CredentialPage } from './credential-management.js';
export { recordAccountEvent, countUnpublishedAccountEvents, accountEventsPending } from './data/account-events.js';
export { accountEventMessage, AccountEventsPublishError } from './account-events.js';
export type { AccountEventProducer, AccountEventType, PublishAccountEventsOptions } from './account-events.js';
export { WORKFLOWS_ADDON, workflowsAddonRequired } from './addons.js';
