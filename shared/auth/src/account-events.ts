// The outbox of account events: an account's creation and deletion write a row in
// identity.account_events in the same transaction as the change itself, and publishAccountEvents
// puts the unpublished rows on the `accounts` topic (keyed by account id) in seq order.
//
// Several publishers (gateway replicas, the CLI) may run at once: one at a time holds the
// publisher lock (data/account-events.ts: a transaction-scoped advisory lock) while it reads,
// sends and marks a batch; the others find it taken and publish nothing this round. SKIP LOCKED
// would let a second publisher send a later event of an account before the first has sent its
// earlier one, and compaction would keep the wrong one.
// A send that fails leaves its rows, and every row after the first failed one, unpublished: the
// next round sends them again in order (a consumer may see an event twice; it is idempotent).
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

/** One unpublished outbox row. */
export interface OutboxEvent {
  seq: bigint;
  accountId: string;
  type: string;
  at: Date;
}

/** The outbox rows, read and marked while the publisher lock is held. */
export interface LockedOutbox {
  /** The first `limit` unpublished rows in seq order. */
  unpublished(limit: number): Promise<OutboxEvent[]>;
  /** Marks these rows published (committed with the lock's transaction). */
  markPublished(seqs: bigint[]): Promise<void>;
}

/** Where the account events wait (data/account-events.ts in Postgres). */
export interface AccountEventOutbox {
  /**
   * Runs `work` holding the publisher lock, in one transaction given `timeoutMs`; undefined,
   * without running it, when another publisher holds the lock.
   */
  whileLocked<T>(work: (outbox: LockedOutbox) => Promise<T>, timeoutMs: number): Promise<T | undefined>;
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
  outbox: AccountEventOutbox,
  producer: AccountEventProducer,
  { limit = 100, transactionTimeoutMs = 15_000 }: PublishAccountEventsOptions = {},
): Promise<number> {
  const result = await outbox.whileLocked(async (locked) => {
    const rows = await locked.unpublished(limit);
    if (rows.length === 0) return 0;
    // All handed to the producer at once (one batch, in this order); per partition Kafka keeps it.
    const outcomes = await Promise.allSettled(
      rows.map((r) => producer.send(TOPICS.accounts, { key: r.accountId, value: JSON.stringify(accountEventMessage(r)) })),
    );
    const firstFailure = outcomes.findIndex((o) => o.status === 'rejected');
    const sent = firstFailure === -1 ? rows : rows.slice(0, firstFailure);
    if (sent.length > 0) await locked.markPublished(sent.map((r) => r.seq));
    if (firstFailure !== -1) {
      // Commit what was sent; the rest is sent again next round.
      return { sent: sent.length, error: (outcomes[firstFailure] as PromiseRejectedResult).reason as unknown };
    }
    return sent.length;
  }, transactionTimeoutMs);
  if (result === undefined || typeof result === 'number') return result ?? 0;
  const err = result.error instanceof Error ? result.error : new Error(String(result.error));
  throw new AccountEventsPublishError(`account events: ${result.sent} published, then a send failed: ${err.message}`, result.sent, { cause: err });
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
