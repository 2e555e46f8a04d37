// The outbox of account events: an account's creation and deletion write a row in
// identity.account_events in the same transaction as the change itself, and publishAccountEvents
// puts the unpublished rows on the `accounts` topic (keyed by account id) in seq order.
//
// Several publishers (gateway replicas, the CLI) may run at once: one at a time holds a
// transaction-scoped advisory lock while it reads, sends and marks a batch; the others find it
// taken and publish nothing this round. SKIP LOCKED would let a second publisher send a later event
// of an account before the first has sent its earlier one, and compaction would keep the wrong one.
// A send that fails leaves its rows, and every row after the first failed one, unpublished: the
// next round sends them again in order (a consumer may see an event twice; it is idempotent).
import { withAdvisoryLock } from '@glimpse/db';
import { type Db } from '@glimpse/db/identity';
import { TOPICS, type AccountEventMessage } from '@glimpse/messaging';

export type AccountEventType = AccountEventMessage['type'];

/** What publishAccountEvents needs of a producer (the BatchingProducer of @glimpse/messaging fits). */
export interface AccountEventProducer {
  send(topic: string, message: { key: string; value: string }): Promise<void>;
}

export interface PublishAccountEventsOptions {
  /** Most rows sent in one round. */
  limit?: number;
  /** The transaction holding the lock is given this long (the Kafka send happens inside it). */
  transactionTimeoutMs?: number;
}

interface Row {
  seq: bigint;
  account_id: string;
  type: string;
  at: Date;
}

/** Writes one outbox row; call it inside the transaction that makes the change. */
export async function recordAccountEvent(tx: Pick<Db, 'accountEvent'>, accountId: string, type: AccountEventType, at: Date = new Date()): Promise<void> {
  await tx.accountEvent.create({ data: { accountId, type, at } });
}

/** The message of one outbox row, exactly as the accounts topic carries it. */
export function accountEventMessage(row: { accountId: string; type: string; at: Date }): AccountEventMessage {
  return { type: row.type as AccountEventType, accountId: row.accountId, at: row.at.toISOString() };
}

/**
 * Publishes unpublished account events in seq order and marks them published; returns how many it
 * published (0 as well when another publisher holds the lock). Throws when a send fails, after
 * marking the rows sent before the first failure.
 */
export async function publishAccountEvents(
  db: Db,
  producer: AccountEventProducer,
  { limit = 100, transactionTimeoutMs = 15_000 }: PublishAccountEventsOptions = {},
): Promise<number> {
  return withAdvisoryLock(
    db,
    'accountEventsPublisher',
    async (tx) => {
      const rows = await tx.$queryRaw<Row[]>`
        SELECT seq, account_id::text AS account_id, type, at FROM account_events
        WHERE published_at IS NULL ORDER BY seq LIMIT ${limit}`;
      if (rows.length === 0) return 0;
      // All handed to the producer at once (one batch, in this order); per partition Kafka keeps it.
      const outcomes = await Promise.allSettled(
        rows.map((r) =>
          producer.send(TOPICS.accounts, {
            key: r.account_id,
            value: JSON.stringify(accountEventMessage({ accountId: r.account_id, type: r.type, at: r.at })),
          }),
        ),
      );
      const firstFailure = outcomes.findIndex((o) => o.status === 'rejected');
      const sent = firstFailure === -1 ? rows : rows.slice(0, firstFailure);
      if (sent.length > 0) {
        await tx.$executeRaw`UPDATE account_events SET published_at = now() WHERE seq = ANY(${sent.map((r) => r.seq)}::bigint[])`;
      }
      if (firstFailure !== -1) {
        // Commit what was sent; the rest is sent again next round.
        return { sent: sent.length, error: (outcomes[firstFailure] as PromiseRejectedResult).reason as unknown };
      }
      return sent.length;
    },
    { timeout: transactionTimeoutMs, maxWait: transactionTimeoutMs },
  ).then((result = 0) => {
    if (typeof result === 'number') return result;
    const err = result.error instanceof Error ? result.error : new Error(String(result.error));
    throw new AccountEventsPublishError(`account events: ${result.sent} published, then a send failed: ${err.message}`, result.sent, { cause: err });
  });
}

/** A round that published `published` events and then failed to send the next one. */
export class AccountEventsPublishError extends Error {
  constructor(
    message: string,
    readonly published: number,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'AccountEventsPublishError';
  }
}

/** How many account events wait to be published (for a gauge). */
export async function countUnpublishedAccountEvents(db: Db): Promise<number> {
  return db.accountEvent.count({ where: { publishedAt: null } });
}

/** Whether the account's events are all published (the CLI reports it after publishing). */
export async function accountEventsPending(db: Db, accountId: string): Promise<number> {
  return db.accountEvent.count({ where: { accountId, publishedAt: null } });
}
