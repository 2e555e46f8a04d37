// Turns an Authorization header into an authenticated account, for one credential kind and
// (for API keys) one scope. Lookups are cached briefly so revocation takes effect within the TTL;
// each lookup that finds a live credential also records its last use (see touch).
import type { Db } from '@glimpse/db';
import { AppError } from '@glimpse/errors';
import { credentialKind, hashCredential, parseBearer, type CredentialKind, type Scope } from './credentials.js';

export interface Principal {
  accountId: string;
  credentialId: string;
  kind: CredentialKind;
  scopes: readonly string[];
}

interface CacheEntry {
  /** Shared by concurrent requests with the same credential, so a cache miss costs one query. */
  principal: Promise<Principal | null>;
  expiresAt: number;
}

export interface Authenticator {
  authenticate(header: string | undefined, required: { kind: CredentialKind; scope?: Scope }): Promise<Principal>;
}

export function createAuthenticator({ db, cacheTtlMs = 2000, maxEntries = 10_000 }: { db: Db; cacheTtlMs?: number; maxEntries?: number }): Authenticator {
  const cache = new Map<string, CacheEntry>();

  async function lookup(kind: CredentialKind, hash: string): Promise<Principal | null> {
    const select = { id: true, accountId: true, revokedAt: true } as const;
    if (kind === 'event_token') {
      const row = await db.eventToken.findUnique({ where: { hash }, select });
      return row && !row.revokedAt ? { accountId: row.accountId, credentialId: row.id, kind, scopes: [] } : null;
    }
    const row = await db.apiKey.findUnique({ where: { hash }, select: { ...select, scopes: true } });
    return row && !row.revokedAt ? { accountId: row.accountId, credentialId: row.id, kind, scopes: row.scopes } : null;
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

  function cachedLookup(kind: CredentialKind, hash: string): Promise<Principal | null> {
    const now = Date.now();
    const hit = cache.get(hash);
    if (hit && hit.expiresAt > now) return hit.principal;
    const principal = lookup(kind, hash).then((p) => {
      if (p) touch(p);
      return p;
    });
    if (cache.size >= maxEntries) cache.clear();
    const entry = { principal, expiresAt: now + cacheTtlMs };
    cache.set(hash, entry);
    // A failed lookup (database down) is not remembered: the next request tries again.
    principal.catch(() => {
      if (cache.get(hash) === entry) cache.delete(hash);
    });
    return principal;
  }

  return {
    async authenticate(header, required) {
      const plain = parseBearer(header);
      if (!plain) throw new AppError('unauthorized', 'missing bearer credential: send Authorization: Bearer <credential>');
      const kind = credentialKind(plain);
      const expected = required.kind === 'event_token' ? 'an event token' : 'an API key';
      if (kind !== required.kind) throw new AppError('unauthorized', `invalid credential: this endpoint takes ${expected}`);
      const principal = await cachedLookup(kind, hashCredential(plain));
      if (!principal) throw new AppError('unauthorized', 'invalid credential: unknown or revoked');
      if (required.scope && !principal.scopes.includes(required.scope)) {
        throw new AppError('forbidden', `this API key lacks the scope ${required.scope}`);
      }
      return principal;
    },
  };
}
