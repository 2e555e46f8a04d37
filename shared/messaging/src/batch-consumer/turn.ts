// A partition's batch in hand ("turn") and the retry loop for work that must not fail a chunk
// (publishing, dead letters): Kafka or Postgres down is waited out while the partition is ours.
import type { Logger } from '@glimpse/logging';
import { StoppedError } from './bisect.js';

/** A partition's batch in hand: whether to go on (not stopping, not rebalanced away), and a pause that heartbeats. */
export interface Turn {
  partition: number;
  keepGoing(): boolean;
  pause(ms: number): Promise<void>;
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms).unref());

export interface PartitionTurnOptions {
  partition: number;
  stopping(): boolean;
  isRunning(): boolean;
  isStale(): boolean;
  heartbeat(): Promise<void>;
  wait?(ms: number): Promise<void>;
}

/** Waits between retries heartbeat, so a long outage does not cost the group membership. */
export function partitionTurn(o: PartitionTurnOptions): Turn {
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

export type UntilDone = (what: () => Promise<void>, turn: Turn) => Promise<void>;

/**
 * Tries `what` until it succeeds or the partition is no longer ours (then StoppedError, which
 * leaves the chunk for redelivery): a dependency down never fails a chunk.
 */
export function createUntilDone(o: { backoffMs(attempt: number): number; logger: Logger; onRetry?(): void }): UntilDone {
  return async (what, turn) => {
    for (let attempt = 1; ; attempt++) {
      try {
        return await what();
      } catch (err) {
        if (err instanceof StoppedError) throw err;
        o.onRetry?.();
        if (!turn.keepGoing()) throw new StoppedError();
        if (attempt === 1 || attempt % 10 === 0)
          o.logger.warn({ err: (err as Error).message?.slice(0, 200), attempt, partition: turn.partition }, 'publishing failed; retrying');
        await turn.pause(o.backoffMs(attempt));
      }
    }
  };
}
