export * from './credentials.js';
export { createAuthenticator } from './authenticator.js';
export type { Authenticator, AuthenticatorOptions, AuthOutcome, LookupAdmission, Principal } from './authenticator.js';
export { accountExists, createAccount, createEventToken, createApiKey, revokeCredential, listEventTokens, listApiKeys } from './credential-repository.js';
export type { CreatedCredential, EventTokenSummary, ApiKeySummary } from './credential-repository.js';
