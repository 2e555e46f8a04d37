// Turns an Authorization header into an authenticated account, for one credential kind and
// (for API keys) one scope. Credentials are cached so the database is not asked on every request:
// - known credentials for `cacheTtlMs` (revocation takes effect within it), in an LRU;
// - while the database fails, a known credential keeps working for `staleIfErrorMs` past its TTL
//   (events go on during a Postgres outage); an unknown one gets 503, never 401 or 500;
// - unknown and revoked credentials for `negativeTtlMs`, in their own LRU, so made-up tokens
//   cost one query each at most and can never evict the known ones;
// - a look-up that would reach the database is first admitted by `admitLookup` (a per-IP limit);
// - after a database failure no look-up is tried for `dbRetryMs`, so a hanging database does
//   not make every request wait for its connect timeout; and for a while after one, a known
//   credential is refreshed in the background while its last answer is served.
// The credentials are read through a CredentialLookupStore (data/credential-lookup.ts in Postgres;
// wiring.ts binds the two for createAuthenticator({ db })).
import { LRUCache } from 'lru-cache';
import { AppError } from '@glimpse/errors';
import { requireCredentialOfKind, requireScope } from './bearer-checks.js';
import { createCredentialFetcher, type KnownCredential } from './credential-fetcher.js';
import { createCredentialResolver } from './credential-resolver.js';
import { hashCredential, type CredentialKind, type Scope } from './credentials.js';
import { createDbFailureWindow } from './db-failure-window.js';
import type { AuthenticatorSettings, Principal } from './authentication.js';

export type { AuthenticatorSettings, AuthOutcome, LookupAdmission, Principal } from './authentication.js';

/** What the authenticator asks of the stored credentials. */
export interface CredentialLookupStore {
  /** The live credential with this hash (with its account's add-on), or null when there is none or it is revoked. */
  lookup(kind: CredentialKind, hash: string): Promise<Principal | null>;
  /**
   * Records that the credential was used (at most once a minute per credential). Fire and forget:
   * a slow or failing write must never slow or fail the request it came from.
   */
  touch(principal: Principal): void;
}

export interface Authenticator {
  authenticate(header: string | undefined, required: { kind: CredentialKind; scope?: Scope }, client?: { ip?: string }): Promise<Principal>;
}

/** The authenticator reading credentials through `store`. */
export function createAuthenticatorOn(
  store: CredentialLookupStore,
  {
    cacheTtlMs = 2000,
    staleIfErrorMs = 600_000,
    negativeTtlMs = 30_000,
    maxEntries = 10_000,
    maxNegativeEntries = 10_000,
    dbRetryMs = 1000,
    admitLookup,
    observe = () => undefined,
  }: AuthenticatorSettings = {},
): Authenticator {
  // lru-cache drops an entry once its whole usable life (fresh, then stale) is over.
  const known = new LRUCache<string, KnownCredential>({ max: maxEntries, ttl: cacheTtlMs + staleIfErrorMs, updateAgeOnGet: false });
  const unknown = negativeTtlMs > 0 ? new LRUCache<string, true>({ max: maxNegativeEntries, ttl: negativeTtlMs }) : undefined;
  const dbWindow = createDbFailureWindow(dbRetryMs);
  const fetcher = createCredentialFetcher({
    lookup: (kind, hash) => store.lookup(kind, hash),
    touch: (principal) => store.touch(principal),
    known,
    unknown,
    onDependencyFailure: () => dbWindow.failed(),
  });

  const resolve = createCredentialResolver({ known, unknown, fetcher, dbWindow, cacheTtlMs, admitLookup, observe });

  return {
    async authenticate(header, required: { kind: CredentialKind; scope?: Scope }, client = {}) {
      const plain = requireCredentialOfKind(header, required.kind);
      const principal = await resolve(required.kind, hashCredential(plain), client.ip);
      if (!principal) throw new AppError('unauthorized', 'invalid credential: unknown or revoked');
      requireScope(principal.scopes, required.scope);
      return principal;
    },
  };
}
