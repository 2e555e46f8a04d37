// The authenticator's CredentialLookupStore in Postgres: finding a credential by its hash (with the
// account's add-on, read in the same query), and recording when it was last used.
import type { Db } from '@glimpse/db/identity';
import type { CredentialLookupStore, Principal } from '../authenticator.js';
import type { CredentialKind } from '../credentials.js';

/** A credential's last use is recorded at most this often. */
const TOUCH_INTERVAL_MS = 60_000;

export function createCredentialLookupStore(db: Db): CredentialLookupStore {
  return {
    async lookup(kind: CredentialKind, hash: string): Promise<Principal | null> {
      const select = { id: true, accountId: true, revokedAt: true, account: { select: { workflows: true } } } as const;
      if (kind === 'event_token') {
        const row = await db.eventToken.findUnique({ where: { hash }, select });
        return row && !row.revokedAt ? { accountId: row.accountId, credentialId: row.id, kind, scopes: [], workflows: row.account.workflows } : null;
      }
      const row = await db.apiKey.findUnique({ where: { hash }, select: { ...select, scopes: true } });
      return row && !row.revokedAt ? { accountId: row.accountId, credentialId: row.id, kind, scopes: row.scopes, workflows: row.account.workflows } : null;
    },

    touch({ kind, credentialId }: Principal): void {
      const now = new Date();
      // One conditional UPDATE: a credential used within the interval is not written again.
      const where = { id: credentialId, OR: [{ lastUsedAt: null }, { lastUsedAt: { lt: new Date(now.getTime() - TOUCH_INTERVAL_MS) } }] };
      const data = { lastUsedAt: now };
      const write = kind === 'event_token' ? db.eventToken.updateMany({ where, data }) : db.apiKey.updateMany({ where, data });
      write.catch(() => undefined);
    },
  };
}
