// identity.link_token_revocations, and the check POST /collect makes of a link token against it:
// the rows that can stop one token are read by primary key and the answer kept `ttlMs` per token
// in a bounded LRU, since a link page view can come on every request; a revocation made through
// this gateway clears its account's answers at once, another gateway's within `ttlMs`. A check
// that cannot reach Postgres fails closed (the link identifies nobody; the page views still count).
import { LRUCache } from 'lru-cache';
import type { Db } from '@glimpse/db/identity';
import { isRevoked, revocationIdsOf, type RevocationRow } from '../domain/link-token-revocation.js';
import type { LinkTokenCheck, LinkTokens } from '../domain/link-token.js';

export interface LinkTokenRevocations {
  /** Writes the rows (a later "*" or email row moves its time on), and purges rows past their expiry. */
  revoke(accountId: string, rows: readonly RevocationRow[]): Promise<void>;
  /** The token's check, revocations included: a revoked token is `link_revoked`, an unreadable state `link_unchecked`. */
  verify(token: string, accountId: string): Promise<LinkTokenCheck>;
}

export interface LinkTokenRevocationsOptions {
  db: Db;
  linkTokens: LinkTokens;
  /** How long a token's answer is kept (a revocation through another gateway takes effect within it). */
  ttlMs: number;
  maxEntries?: number;
  onFailure?(err: unknown): void;
}

export function createLinkTokenRevocations({ db, linkTokens, ttlMs, maxEntries = 10_000, onFailure }: LinkTokenRevocationsOptions): LinkTokenRevocations {
  // Keyed account, then token: a revocation clears its account's answers.
  const answers = new LRUCache<string, { revoked: boolean }>({ max: maxEntries, ttl: Math.max(ttlMs, 1) });

  async function revokedNow(accountId: string, ids: string[], cacheKey: string, check: Parameters<typeof isRevoked>[0], emailKey: string) {
    const hit = answers.get(cacheKey);
    if (hit) return hit.revoked;
    const rows = await db.$queryRaw<{ tokenId: string; revokedBefore: Date | null }[]>`
      SELECT token_id AS "tokenId", revoked_before AS "revokedBefore" FROM link_token_revocations
      WHERE account_id = ${accountId}::uuid AND token_id = ANY(${ids}::text[]) AND expires_at > now()`;
    const revoked = isRevoked(
      check,
      emailKey,
      rows.map((r) => ({ tokenId: r.tokenId, revokedBefore: r.revokedBefore === null ? null : new Date(r.revokedBefore) })),
    );
    answers.set(cacheKey, { revoked });
    return revoked;
  }

  return {
    async revoke(accountId, rows) {
      if (rows.length > 0) {
        await db.$executeRaw`
          INSERT INTO link_token_revocations (account_id, token_id, revoked_before, expires_at)
          SELECT ${accountId}::uuid, * FROM unnest(${rows.map((r) => r.tokenId)}::text[], ${rows.map((r) => r.revokedBefore)}::timestamptz[], ${rows.map((r) => r.expiresAt)}::timestamptz[])
          ON CONFLICT (account_id, token_id) DO UPDATE SET revoked_before = GREATEST(link_token_revocations.revoked_before, EXCLUDED.revoked_before),
            revoked_at = now(), expires_at = GREATEST(link_token_revocations.expires_at, EXCLUDED.expires_at)`;
      }
      // Few rows ever expire at once; the index on expires_at finds them.
      await db.$executeRaw`DELETE FROM link_token_revocations WHERE expires_at <= now()`;
      for (const key of answers.keys()) if (key.startsWith(`${accountId}\n`)) answers.delete(key);
    },
    async verify(token, accountId) {
      const check = linkTokens.verify(token, accountId);
      if (!check.ok) return check;
      const emailKey = linkTokens.emailKey(check.email);
      const ids = revocationIdsOf(check, emailKey);
      try {
        const revoked = await revokedNow(accountId, ids, `${accountId}\n${check.id ?? ''}\n${check.issuedAt}\n${emailKey}`, check, emailKey);
        return revoked ? { ok: false, reason: 'link_revoked' } : check;
      } catch (err) {
        onFailure?.(err);
        return { ok: false, reason: 'link_unchecked' };
      }
    },
  };
}
