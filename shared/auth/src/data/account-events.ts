// The account events outbox in Postgres (identity.account_events): the rows written with an
// account's changes, the publisher lock, and the counts for the gauge and the CLI.
import { withAdvisoryLock } from '@glimpse/db';
import type { Db, Tx } from '@glimpse/db/identity';
import type { AccountEventOutbox, AccountEventType, LockedOutbox } from '../account-events.js';

/** Writes one outbox row; call it inside the transaction that makes the change. */
export async function recordAccountEvent(tx: Pick<Db, 'accountEvent'>, accountId: string, type: AccountEventType, at: Date = new Date()): Promise<void> {
  await tx.accountEvent.create({ data: { accountId, type, at } });
}

function lockedOutbox(tx: Tx): LockedOutbox {
  return {
    unpublished: (limit) =>
      tx.accountEvent.findMany({
        where: { publishedAt: null },
        orderBy: { seq: 'asc' },
        take: limit,
        select: { seq: true, accountId: true, type: true, at: true },
      }),
    async markPublished(seqs) {
      await tx.accountEvent.updateMany({ where: { seq: { in: seqs } }, data: { publishedAt: new Date() } });
    },
  };
}

/** The outbox; its lock is the transaction-scoped advisory lock `accountEventsPublisher`, taken without waiting. */
export function createAccountEventOutbox(db: Db): AccountEventOutbox {
  return {
    whileLocked: (work, timeoutMs) =>
      withAdvisoryLock(db, 'accountEventsPublisher', (tx) => work(lockedOutbox(tx)), { timeout: timeoutMs, maxWait: timeoutMs }),
  };
}

/** How many account events wait to be published (for a gauge). */
export async function countUnpublishedAccountEvents(db: Db): Promise<number> {
  return db.accountEvent.count({ where: { publishedAt: null } });
}

/** Whether the account's events are all published (the CLI reports it after publishing). */
export async function accountEventsPending(db: Db, accountId: string): Promise<number> {
  return db.accountEvent.count({ where: { accountId, publishedAt: null } });
}
