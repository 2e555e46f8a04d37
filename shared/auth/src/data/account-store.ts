// Accounts in Postgres (identity.accounts): the AccountStore of accounts.ts and the AddonStore of
// addons.ts. Creation and deletion write their outbox row in the same transaction.
import type { Db } from '@glimpse/db/identity';
import type { AccountStore } from '../accounts.js';
import type { AddonStore } from '../addons.js';
import { recordAccountEvent } from './account-events.js';

export function createAccountStore(db: Db): AccountStore & AddonStore {
  return {
    createAccount: (name, workflows) =>
      db.$transaction(async (tx) => {
        const account = await tx.account.create({ data: { name, workflows }, select: { id: true, name: true, createdAt: true } });
        await recordAccountEvent(tx, account.id, 'account.created', account.createdAt);
        return { id: account.id, name: account.name };
      }),

    deleteAccount: (accountId, at) =>
      db.$transaction(async (tx) => {
        const { count } = await tx.account.deleteMany({ where: { id: accountId } });
        if (count === 0) return false;
        await recordAccountEvent(tx, accountId, 'account.deleted', at);
        return true;
      }),

    accountExists: async (accountId) => (await db.account.count({ where: { id: accountId } })) > 0,

    setWorkflows: async (accountId, workflows) => (await db.account.updateMany({ where: { id: accountId }, data: { workflows } })).count > 0,

    addons: (accountId) => db.account.findUnique({ where: { id: accountId }, select: { id: true, name: true, workflows: true } }),
  };
}
