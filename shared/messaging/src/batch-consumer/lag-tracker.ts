// The consumer's lag per assigned partition (the partition's end offset − the next offset this
// member will apply) and whether it is stuck: a partition with lag > 0 whose position has not
// moved for `stuckAfterMs`. Positions come from the consumer itself after each applied batch, and
// from a periodic poll of the broker (end offsets, the group's committed offsets), so the lag is
// right also while no batch arrives.

export interface PartitionLag {
  partition: number;
  lag: number;
  /** Milliseconds since the position last moved (or since the partition was assigned). */
  sinceProgressMs: number;
}

interface PartitionState {
  position: number;
  end: number;
  lastProgressAt: number;
}

export class LagTracker {
  private readonly partitions = new Map<number, PartitionState>();

  constructor(
    private readonly stuckAfterMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** The partitions this member holds now (after a rebalance); their clocks restart. */
  assign(partitions: number[]): void {
    const kept = new Map(this.partitions);
    this.partitions.clear();
    for (const p of partitions) this.partitions.set(p, kept.get(p) ?? { position: -1, end: -1, lastProgressAt: this.now() });
    for (const s of this.partitions.values()) s.lastProgressAt = this.now();
  }

  /** What the consumer or the broker says: the next offset to apply and/or the partition's end. */
  observe(partition: number, { position, end }: { position?: number; end?: number }): void {
    const s = this.partitions.get(partition);
    if (!s) return;
    if (position !== undefined && position > s.position) {
      if (s.position >= 0) s.lastProgressAt = this.now();
      s.position = position;
    }
    if (end !== undefined && end >= 0) s.end = Math.max(s.end, end);
  }

  assigned(): number[] {
    return [...this.partitions.keys()].sort((a, b) => a - b);
  }

  lags(): PartitionLag[] {
    const now = this.now();
    return this.assigned().map((partition) => {
      const s = this.partitions.get(partition)!;
      const lag = s.position < 0 || s.end < 0 ? 0 : Math.max(0, s.end - s.position);
      return { partition, lag, sinceProgressMs: now - s.lastProgressAt };
    });
  }

  /** The partitions behind and without progress for longer than allowed. */
  stuck(): PartitionLag[] {
    return this.lags().filter((l) => l.lag > 0 && l.sinceProgressMs > this.stuckAfterMs);
  }
}
