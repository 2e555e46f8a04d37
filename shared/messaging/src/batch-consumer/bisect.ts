// Bounded handling of a failing batch. A batch whose apply fails while its dependencies are up is
// split in halves, each applied (and split again) in order, until the failing message stands
// alone; that one is tried `maxAttempts` times with back-off, then dead-lettered with its reason,
// and the partition moves on. A failure while a dependency is down (Postgres refused, timed out)
// says nothing about the messages: the batch is retried whole, with back-off, until it passes or
// the consumer is stopped — never dead-lettered.

export interface BisectOptions<T> {
  apply(items: T[]): Promise<void>;
  /** True when the failure is an outage of a dependency (retry the same batch), not the messages' fault. */
  isOutage(err: unknown): Promise<boolean>;
  deadLetter(item: T, reason: string, attempts: number): Promise<void>;
  /** A short reason for the dead-letter header: codes only, never a value from the message. */
  reason(err: unknown): string;
  /** Attempts of a single message before it is dead-lettered. */
  maxAttempts: number;
  backoffMs(attempt: number): number;
  sleep(ms: number): Promise<void>;
  /** False once the consumer is stopping or lost the partition: give up without dead-lettering. */
  keepGoing(): boolean;
  /** Called after every successful apply with the items it applied (to resolve their offsets). */
  onApplied?(items: T[]): Promise<void> | void;
  onRetry?(what: 'outage' | 'failure' | 'split'): void;
}

export class StoppedError extends Error {
  constructor() {
    super('consumer stopping: batch left for redelivery');
    this.name = 'StoppedError';
  }
}

export async function applyBisecting<T>(items: T[], o: BisectOptions<T>): Promise<void> {
  if (items.length === 0) return;
  for (let attempt = 1; ; attempt++) {
    if (!o.keepGoing()) throw new StoppedError();
    try {
      await o.apply(items);
      await o.onApplied?.(items);
      return;
    } catch (err) {
      if (err instanceof StoppedError) throw err;
      if (await o.isOutage(err)) {
        o.onRetry?.('outage');
        attempt = 0; // an outage does not count against the messages
        await o.sleep(o.backoffMs(Number.MAX_SAFE_INTEGER));
        continue;
      }
      if (items.length > 1) {
        o.onRetry?.('split');
        const half = Math.ceil(items.length / 2);
        await applyBisecting(items.slice(0, half), o);
        await applyBisecting(items.slice(half), o);
        return;
      }
      if (attempt >= o.maxAttempts) {
        await o.deadLetter(items[0]!, o.reason(err), attempt);
        await o.onApplied?.(items);
        return;
      }
      o.onRetry?.('failure');
      await o.sleep(o.backoffMs(attempt));
    }
  }
}

/** Exponential back-off from `firstMs`, doubling, at most `maxMs`. */
export function backoff(firstMs: number, maxMs: number): (attempt: number) => number {
  return (attempt) => Math.min(maxMs, firstMs * 2 ** Math.min(30, Math.max(0, attempt - 1)));
}
