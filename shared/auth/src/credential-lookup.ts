// The authenticator's two queries: finding a credential by its hash (with the account's add-on,
// read in the same query), and recording when it was last used.
import type { Db } from '@glimpse/db/identity';
import type { CredentialKind } from './credentials.js';
import type { Principal } from './authenticator.js';

/** The live credential with this hash, or null when there is none or it is revoked. */
export async function lookupCredential(db: Db, kind: CredentialKind, hash: string): Promise<Principal | null> {
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
export function touchCredential(db: Db, { kind, credentialId }: Principal): void {
  const write =
    kind === 'event_token'
      ? db.$executeRaw`UPDATE event_tokens SET last_used_at = now()
        WHERE id = ${credentialId}::uuid AND (last_used_at IS NULL OR last_used_at < now() - interval '1 minute')`
      : db.$executeRaw`UPDATE api_keys SET last_used_at = now()
        WHERE id = ${credentialId}::uuid AND (last_used_at IS NULL OR last_used_at < now() - interval '1 minute')`;
  write.catch(() => undefined);
}
