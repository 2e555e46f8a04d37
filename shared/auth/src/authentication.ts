// What one authentication is: the principal it yields, the outcome it records and the settings of
// the authenticator doing it. The authenticator and its two parts (credential-fetcher.ts,
// credential-resolver.ts) share these, so they live apart from all three.
import type { CredentialKind } from './credentials.js';

export interface Principal {
  accountId: string;
  credentialId: string;
  kind: CredentialKind;
  scopes: readonly string[];
  /**
   * Whether the account has the workflows add-on, read with the credential and cached with it: a
   * removal takes effect within `cacheTtlMs`, with no query of its own.
   */
  workflows: boolean;
}

/** What happened to one authentication, for a metric. */
export type AuthOutcome = 'cached' | 'looked_up' | 'negative_cached' | 'stale_served' | 'unavailable' | 'limited';

export interface LookupAdmission {
  allowed: boolean;
  retryAfterSeconds: number;
}

/** The authenticator's cache windows, limits and hooks (every one has a default). */
export interface AuthenticatorSettings {
  cacheTtlMs?: number;
  staleIfErrorMs?: number;
  negativeTtlMs?: number;
  maxEntries?: number;
  maxNegativeEntries?: number;
  dbRetryMs?: number;
  /** Asked before a look-up reaches the database, with the client's address. */
  admitLookup?(clientIp: string | undefined): LookupAdmission;
  observe?(outcome: AuthOutcome): void;
}
