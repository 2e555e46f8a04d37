// The lease on a partition while its batch is in hand (it ends when the consumer stops or the
// partition is rebalanced away), and the retry loop for work that must not fail a chunk
// (publishing, dead letters): Kafka or Postgres down is waited out while the lease holds.
import type { Logger } from '@glimpse/logging';
import { StoppedError } from './bisect.js';

/** A partition's batch in hand: whether the lease still holds (not stopping, not rebalanced away), and a pause that heartbeats. */
export interface PartitionLease {
  partition: number;
  keepGoing(): boolean;
  pause(ms: number): Promise<void>;
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms).unref());

export interface PartitionLeaseOptions {
  partition: number;
  stopping(): boolean;
  isRunning(): boolean;
  isStale(): boolean;
  heartbeat(): Promise<void>;
  wait?(ms: number): Promise<void>;
}

/** Waits between retries heartbeat, so a long outage does not cost the group membership. */
export function partitionLease(o: PartitionLeaseOptions): PartitionLease {
  const wait = o.wait ?? sleep;
  return {
    partition: o.partition,
    keepGoing: () => !o.stopping() && o.isRunning() && !o.isStale(),
    async pause(ms) {
      await wait(ms);
      await o.heartbeat().catch(() => undefined);
    },
  };
}

export type UntilDone = (what: () => Promise<void>, lease: PartitionLease) => Promise<void>;

/**
 * Tries `what` until it succeeds or the partition is no longer ours (then StoppedError, which
 * leaves the chunk for redelivery): a dependency down never fails a chunk.
 */
export function createUntilDone(o: { backoffMs(attempt: number): number; logger: Logger; onRetry?(): void }): UntilDone {
  return async (what, lease) => {
    for (let attempt = 1; ; attempt++) {
      try {
        return await what();
      } catch (err) {
        if (err instanceof StoppedError) throw err;
        o.onRetry?.();
        if (!lease.keepGoing()) throw new StoppedError();
        if (attempt === 1 || attempt % 10 === 0)
          o.logger.warn({ err: (err as Error).message?.slice(0, 200), attempt, partition: lease.partition }, 'publishing failed; retrying');
        await lease.pause(o.backoffMs(attempt));
      }
    }
  };
}
