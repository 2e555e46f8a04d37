// Work one process at a time may do, across every replica: a transaction that takes an advisory
// lock without waiting, and skips the work when another transaction holds it. The keys have their
// one home here, so two jobs can never share a key by accident (they would skip each other).

export const ADVISORY_LOCKS = {
  /** playbook: deleting processed event ids past their retention. */
  processedEventsPurge: 7_204_311n,
  /** playbook: folding catalog changes into event_names. */
  catalogFold: 7_204_312n,
  /** playbook: publishing effects left unpublished. */
  effectsSweep: 7_204_313n,
  /** identity: publishing the account events outbox ("glimacct"). */
  accountEventsPublisher: 0x676c696d61636374n,
  /** enrichment: rolling the usage ledger up into usage_days ("ledg"), taken inside its statement. */
  usageRollup: 0x6c656467n,
  /** visitors: deleting collected message ids past their retention. */
  collectedMessagesPurge: 7_204_321n,
  /** visitors: deleting visitors (and their sessions, links, firings) past the visitor retention. */
  visitorRetention: 7_204_322n,
} as const;

export type AdvisoryLock = keyof typeof ADVISORY_LOCKS;

/** What the lock needs of a service's Prisma client (any of them): a raw query inside a transaction. */
interface RawQueries {
  $queryRaw<T>(query: TemplateStringsArray, ...values: unknown[]): PromiseLike<T>;
}
interface Transactions<Tx extends RawQueries> {
  $transaction<R>(fn: (tx: Tx) => Promise<R>, options?: { timeout?: number; maxWait?: number }): Promise<R>;
}

/**
 * Runs `fn` in a transaction holding the lock, released at commit or rollback; undefined, without
 * running it, when another transaction holds the lock.
 */
export async function withAdvisoryLock<Tx extends RawQueries, T>(
  db: Transactions<Tx>,
  lock: AdvisoryLock,
  fn: (tx: Tx) => Promise<T>,
  options: { timeout?: number; maxWait?: number } = {},
): Promise<T | undefined> {
  return db.$transaction(async (tx) => {
    const [row] = await tx.$queryRaw<{ held: boolean }[]>`SELECT pg_try_advisory_xact_lock(${ADVISORY_LOCKS[lock]}::bigint) AS held`;
    return row?.held ? fn(tx) : undefined;
  }, options);
}
