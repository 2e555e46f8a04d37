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
import { LRUCache } from 'lru-cache';
import type { Db } from '@glimpse/db';
import { AppError, isDependencyFailure } from '@glimpse/errors';
import { credentialKind, hashCredential, parseBearer, type CredentialKind, type Scope } from './credentials.js';

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

export interface AuthenticatorOptions {
  db: Db;
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

export interface Authenticator {
  authenticate(header: string | undefined, required: { kind: CredentialKind; scope?: Scope }, client?: { ip?: string }): Promise<Principal>;
}

interface Known {
  principal: Principal;
  fetchedAt: number;
}

export function createAuthenticator({
  db,
  cacheTtlMs = 2000,
  staleIfErrorMs = 600_000,
  negativeTtlMs = 30_000,
  maxEntries = 10_000,
  maxNegativeEntries = 10_000,
  dbRetryMs = 1000,
  admitLookup,
  observe = () => undefined,
}: AuthenticatorOptions): Authenticator {
  // lru-cache drops an entry once its whole usable life (fresh, then stale) is over.
  const known = new LRUCache<string, Known>({ max: maxEntries, ttl: cacheTtlMs + staleIfErrorMs, updateAgeOnGet: false });
  const unknown = negativeTtlMs > 0 ? new LRUCache<string, true>({ max: maxNegativeEntries, ttl: negativeTtlMs }) : undefined;
  /** Shared by concurrent requests with the same credential, so a cache miss costs one query. */
  const inFlight = new Map<string, Promise<Principal | null>>();
  let dbFailingUntil = 0;
  let lastDbFailureAt = -Infinity;
  /** After a database failure, known credentials do not wait on a refresh for this long. */
  const suspectMs = Math.max(dbRetryMs, 30_000);

  async function lookup(kind: CredentialKind, hash: string): Promise<Principal | null> {
    const select = { id: true, accountId: true, revokedAt: true, account: { select: { workflows: true } } } as const;
    if (kind === 'event_token') {
      const row = await db.eventToken.findUnique({ where: { hash }, select });
      return row && !row.revokedAt ? { accountId: row.accountId, credentialId: row.id, kind, scopes: [], workflows: row.account.workflows } : null;
    }
    const row = await db.apiKey.findUnique({ where: { hash }, select: { ...select, scopes: true } });
    return row && !row.revokedAt ? { accountId: row.accountId, credentialId: row.id, kind, scopes: row.scopes, workflows: row.account.workflows } : null;
  }

  /**
   * Records when a credential was last used, at most once a minute per credential. Fire and
   * forget: a slow or failing write must never slow or fail the request it came from.
   */
  function touch({ kind, credentialId }: Principal): void {
    const write = kind === 'event_token'
      ? db.$executeRaw`UPDATE event_tokens SET last_used_at = now()
          WHERE id = ${credentialId}::uuid AND (last_used_at IS NULL OR last_used_at < now() - interval '1 minute')`
      : db.$executeRaw`UPDATE api_keys SET last_used_at = now()
          WHERE id = ${credentialId}::uuid AND (last_used_at IS NULL OR last_used_at < now() - interval '1 minute')`;
    write.catch(() => undefined);
  }

  function fetch(kind: CredentialKind, hash: string): Promise<Principal | null> {
    const pending = inFlight.get(hash);
    if (pending) return pending;
    const started = lookup(kind, hash).then(
      (principal) => {
        if (principal) {
          known.set(hash, { principal, fetchedAt: Date.now() });
          unknown?.delete(hash);
          touch(principal);
        } else {
          known.delete(hash);
          unknown?.set(hash, true);
        }
        return principal;
      },
      (err: unknown) => {
        if (isDependencyFailure(err)) {
          lastDbFailureAt = Date.now();
          dbFailingUntil = lastDbFailureAt + dbRetryMs;
        }
        throw err;
      },
    );
    inFlight.set(hash, started);
    void started.finally(() => inFlight.delete(hash)).catch(() => undefined);
    return started;
  }

  const unavailable = (cause?: unknown) =>
    new AppError('service_unavailable', 'credentials cannot be checked right now; retry later', { cause, headers: { 'Retry-After': '1' } });

  async function resolve(kind: CredentialKind, hash: string, clientIp: string | undefined): Promise<Principal | null> {
    const now = Date.now();
    const entry = known.get(hash);
    if (entry && now - entry.fetchedAt < cacheTtlMs) {
      observe('cached');
      return entry.principal;
    }
    if (unknown?.has(hash)) {
      observe('negative_cached');
      return null;
    }
    // Known a moment ago and the database is failing: the last answer stands, for a bounded time.
    const stale = () => {
      if (!entry) return undefined;
      observe('stale_served');
      return entry.principal;
    };
    if (entry && now - lastDbFailureAt < suspectMs) {
      // The database failed a moment ago: refresh in the background, answer with what we know.
      if (now >= dbFailingUntil) fetch(kind, hash).catch(() => undefined);
      return stale()!;
    }
    if (now < dbFailingUntil && !inFlight.has(hash)) {
      const principal = stale();
      if (principal) return principal;
      observe('unavailable');
      throw unavailable();
    }
    if (!entry && !inFlight.has(hash) && admitLookup) {
      const admission = admitLookup(clientIp);
      if (!admission.allowed) {
        observe('limited');
        throw new AppError('rate_limited', 'too many credential checks from this address; slow down and retry', {
          headers: { 'Retry-After': String(admission.retryAfterSeconds) },
        });
      }
    }
    try {
      const principal = await fetch(kind, hash);
      observe('looked_up');
      return principal;
    } catch (err) {
      if (!isDependencyFailure(err)) throw err;
      const principal = stale();
      if (principal) return principal;
      observe('unavailable');
      throw unavailable(err);
    }
  }

  return {
    async authenticate(header, required, client = {}) {
      const plain = parseBearer(header);
      if (!plain) throw new AppError('unauthorized', 'missing bearer credential: send Authorization: Bearer <credential>');
      const kind = credentialKind(plain);
      const expected = required.kind === 'event_token' ? 'an event token' : 'an API key';
      if (kind !== required.kind) throw new AppError('unauthorized', `invalid credential: this endpoint takes ${expected}`);
      const principal = await resolve(kind, hashCredential(plain), client.ip);
      if (!principal) throw new AppError('unauthorized', 'invalid credential: unknown or revoked');
      if (required.scope && !principal.scopes.includes(required.scope)) {
        throw new AppError('forbidden', `this API key lacks the scope ${required.scope}`);
      }
      return principal;
    },
  };
}
