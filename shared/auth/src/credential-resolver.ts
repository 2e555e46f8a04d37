// Answers one credential's hash with its principal (or null: unknown or revoked), from the caches
// when they may answer (see decideFromCache), else from the database; while the database fails,
// with the last answer known for a bounded time, else 503.
import type { LRUCache } from 'lru-cache';
import { AppError, isDependencyFailure } from '@glimpse/errors';
import type { AuthenticatorSettings, AuthOutcome, Principal } from './authentication.js';
import { decideFromCache } from './cache-decision.js';
import type { CredentialFetcher, KnownCredential } from './credential-fetcher.js';
import type { CredentialKind } from './credentials.js';
import type { DbFailureWindow } from './db-failure-window.js';

const unavailable = (cause?: unknown) =>
  new AppError('service_unavailable', 'credentials cannot be checked right now; retry later', { cause, headers: { 'Retry-After': '1' } });

/** Throws 429 when a new look-up from this address is not admitted. */
export function requireAdmission(
  admitLookup: AuthenticatorSettings['admitLookup'],
  clientIp: string | undefined,
  observe: (outcome: AuthOutcome) => void,
): void {
  const admission = admitLookup?.(clientIp);
  if (!admission || admission.allowed) return;
  observe('limited');
  throw new AppError('rate_limited', 'too many credential checks from this address; slow down and retry', {
    headers: { 'Retry-After': String(admission.retryAfterSeconds) },
  });
}

export interface CredentialResolverOptions {
  known: LRUCache<string, KnownCredential>;
  unknown: LRUCache<string, true> | undefined;
  fetcher: CredentialFetcher;
  dbWindow: DbFailureWindow;
  cacheTtlMs: number;
  admitLookup: AuthenticatorSettings['admitLookup'];
  observe(outcome: AuthOutcome): void;
}

export type CredentialResolver = (kind: CredentialKind, hash: string, clientIp: string | undefined) => Promise<Principal | null>;

export function createCredentialResolver({
  known,
  unknown,
  fetcher,
  dbWindow,
  cacheTtlMs,
  admitLookup,
  observe,
}: CredentialResolverOptions): CredentialResolver {
  /** Known a moment ago and the database is failing: the last answer stands, for a bounded time; else 503. */
  function staleOrUnavailable(entry: KnownCredential | undefined, cause?: unknown): Principal {
    if (entry) {
      observe('stale_served');
      return entry.principal;
    }
    observe('unavailable');
    throw unavailable(cause);
  }

  async function lookUp(kind: CredentialKind, hash: string, entry: KnownCredential | undefined): Promise<Principal | null> {
    try {
      const principal = await fetcher.fetch(kind, hash);
      observe('looked_up');
      return principal;
    } catch (err) {
      if (!isDependencyFailure(err)) throw err;
      return staleOrUnavailable(entry, err);
    }
  }

  return async function resolve(kind: CredentialKind, hash: string, clientIp: string | undefined): Promise<Principal | null> {
    const now = Date.now();
    const entry = known.get(hash);
    const decision = decideFromCache(
      {
        entryAgeMs: entry && now - entry.fetchedAt,
        negative: unknown?.has(hash) ?? false,
        inFlight: fetcher.isInFlight(hash),
        dbSuspect: dbWindow.isSuspect(now),
        dbFailing: dbWindow.isFailing(now),
      },
      cacheTtlMs,
    );
    switch (decision.action) {
      case 'serve_cached':
        observe('cached');
        return entry!.principal;
      case 'serve_negative':
        observe('negative_cached');
        return null;
      case 'serve_stale':
        if (decision.refresh) fetcher.fetch(kind, hash).catch(() => undefined);
        return staleOrUnavailable(entry);
      case 'stale_or_unavailable':
        return staleOrUnavailable(entry);
      case 'look_up':
        if (decision.admit) requireAdmission(admitLookup, clientIp, observe);
        return lookUp(kind, hash, entry);
    }
  };
}
