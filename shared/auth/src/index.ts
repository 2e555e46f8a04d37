export * from './credentials.js';
export { createAuthenticator } from './authenticator.js';
export type { Authenticator, Principal } from './authenticator.js';
export { createAccount, createEventToken, createApiKey, revokeCredential } from './credential-repository.js';
export type { CreatedCredential } from './credential-repository.js';
