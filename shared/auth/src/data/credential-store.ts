// Event tokens and API keys in Postgres: the CredentialStore of credential-management.ts.
import type { Db, Tx } from '@glimpse/db/identity';
import type { CredentialCursor, CredentialStore, CredentialTransaction } from '../credential-management.js';

const summary = { id: true, prefix: true, createdAt: true, lastUsedAt: true, revokedAt: true } as const;
const newestFirst = [{ createdAt: 'desc' }, { id: 'desc' }] as const;

/** Strictly after the cursor in newest-first order. */
const after = (cursor: CredentialCursor | null) => (cursor ? { OR: [{ createdAt: { lt: cursor.at } }, { createdAt: cursor.at, id: { lt: cursor.id } }] } : {});

function transactionOn(tx: Tx): CredentialTransaction {
  return {
    async lockAccount(accountId) {
      // FOR NO KEY UPDATE: creations of one account queue, while inserts referencing the account
      // elsewhere (its foreign keys) do not wait. Prisma has no row lock: raw SQL, one parameter.
      const locked = await tx.$queryRaw<{ id: string }[]>`SELECT id::text AS id FROM accounts WHERE id = ${accountId}::uuid FOR NO KEY UPDATE`;
      return locked.length > 0;
    },
    countActive: (kind, accountId) =>
      kind === 'event_token' ? tx.eventToken.count({ where: { accountId, revokedAt: null } }) : tx.apiKey.count({ where: { accountId, revokedAt: null } }),
    insertEventToken: (data) => tx.eventToken.create({ data, select: { id: true, createdAt: true } }),
    insertApiKey: (data) => tx.apiKey.create({ data, select: { id: true, createdAt: true } }),
    async pruneRevoked(kind, accountId, keep) {
      // One set-based DELETE (the rows past the `keep` most recently revoked), so no id list makes
      // a round trip through the client.
      if (kind === 'event_token') {
        await tx.$executeRaw`DELETE FROM event_tokens WHERE id IN (
          SELECT id FROM event_tokens WHERE account_id = ${accountId}::uuid AND revoked_at IS NOT NULL ORDER BY revoked_at DESC, id DESC OFFSET ${keep}::int)`;
      } else {
        await tx.$executeRaw`DELETE FROM api_keys WHERE id IN (
          SELECT id FROM api_keys WHERE account_id = ${accountId}::uuid AND revoked_at IS NOT NULL ORDER BY revoked_at DESC, id DESC OFFSET ${keep}::int)`;
      }
    },
  };
}

export function createCredentialStore(db: Db): CredentialStore {
  return {
    transaction: (work) => db.$transaction((tx) => work(transactionOn(tx))),

    async revoke(kind, accountId, id, at) {
      const where = { id, accountId, revokedAt: null };
      const data = { revokedAt: at };
      const { count } = kind === 'event_token' ? await db.eventToken.updateMany({ where, data }) : await db.apiKey.updateMany({ where, data });
      return count > 0;
    },

    async exists(kind, accountId, id) {
      const row =
        kind === 'event_token'
          ? await db.eventToken.findFirst({ where: { id, accountId }, select: { id: true } })
          : await db.apiKey.findFirst({ where: { id, accountId }, select: { id: true } });
      return row !== null;
    },

    eventTokens: (accountId, page) =>
      db.eventToken.findMany({ where: { accountId, ...after(page?.after ?? null) }, select: summary, orderBy: [...newestFirst], take: page?.take }),

    apiKeys: (accountId, page) =>
      db.apiKey.findMany({
        where: { accountId, ...after(page?.after ?? null) },
        select: { ...summary, scopes: true },
        orderBy: [...newestFirst],
        take: page?.take,
      }),
  };
}
