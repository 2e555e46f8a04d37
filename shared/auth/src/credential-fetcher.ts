// One look-up of a credential, shared by concurrent requests with the same credential (a cache
// miss costs one query), whose answer goes into the caches: a live credential into the known ones
// (and its last use recorded), an unknown or revoked one into the negative cache.
import type { LRUCache } from 'lru-cache';
import { isDependencyFailure } from '@glimpse/errors';
import type { CredentialKind } from './credentials.js';
import type { Principal } from './authentication.js';

export interface KnownCredential {
  principal: Principal;
  fetchedAt: number;
}

export interface CredentialFetcherOptions {
  lookup(kind: CredentialKind, hash: string): Promise<Principal | null>;
  touch(principal: Principal): void;
  known: LRUCache<string, KnownCredential>;
  unknown: LRUCache<string, true> | undefined;
  /** Called when a look-up failed because the database did (not for other errors). */
  onDependencyFailure(): void;
}

export interface CredentialFetcher {
  fetch(kind: CredentialKind, hash: string): Promise<Principal | null>;
  isInFlight(hash: string): boolean;
}

export function createCredentialFetcher({ lookup, touch, known, unknown, onDependencyFailure }: CredentialFetcherOptions): CredentialFetcher {
  const inFlight = new Map<string, Promise<Principal | null>>();

  const remember = (hash: string, principal: Principal | null) => {
    if (principal) {
      known.set(hash, { principal, fetchedAt: Date.now() });
      unknown?.delete(hash);
      touch(principal);
    } else {
      known.delete(hash);
      unknown?.set(hash, true);
    }
    return principal;
  };

  return {
    fetch(kind, hash) {
      const pending = inFlight.get(hash);
      if (pending) return pending;
      const started = lookup(kind, hash).then(
        (principal) => remember(hash, principal),
        (err: unknown) => {
          if (isDependencyFailure(err)) onDependencyFailure();
          throw err;
        },
      );
      inFlight.set(hash, started);
      void started.finally(() => inFlight.delete(hash)).catch(() => undefined);
      return started;
    },
    isInFlight: (hash) => inFlight.has(hash),
  };
}
