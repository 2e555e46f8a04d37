export * from './credentials.js';
export { createAuthenticator } from './authenticator.js';
export type { Authenticator, AuthenticatorOptions, AuthOutcome, LookupAdmission, Principal } from './authenticator.js';
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
  DEFAULT_CREDENTIAL_CAPS,
} from './credential-repository.js';
export type { CreatedCredential, EventTokenSummary, ApiKeySummary, CredentialCaps, CredentialPageQuery, CredentialPage } from './credential-repository.js';
export {
  publishAccountEvents,
  recordAccountEvent,
  accountEventMessage,
  countUnpublishedAccountEvents,
  accountEventsPending,
  AccountEventsPublishError,
} from './account-events.js';
export type { AccountEventProducer, AccountEventType, PublishAccountEventsOptions } from './account-events.js';
export { WORKFLOWS_ADDON, workflowsAddonRequired, setWorkflowsAddon, accountAddons } from './addons.js';
