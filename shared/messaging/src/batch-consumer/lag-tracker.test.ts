import { LagTracker } from './lag-tracker';

describe('LagTracker', () => {
  let t = 0;
  const clock = () => t;

  it('when a partition is behind and its position does not move for longer than allowed, then it is stuck; progress clears it', () => {
    t = 0;
    const lag = new LagTracker(30_000, clock);
    lag.assign([0, 1]);
    lag.observe(0, { position: 100, end: 150 });
    lag.observe(1, { position: 10, end: 10 });
    t = 20_000;
    expect(lag.stuck()).toEqual([]);
    t = 31_000;
    expect(lag.stuck()).toEqual([{ partition: 0, lag: 50, sinceProgressMs: 31_000 }]);
    lag.observe(0, { position: 120 });
    expect(lag.stuck()).toEqual([]);
    expect(lag.lags()).toEqual([
      { partition: 0, lag: 30, sinceProgressMs: 0 },
      { partition: 1, lag: 0, sinceProgressMs: 31_000 },
    ]);
  });

  it('when a partition has no lag, then it is never stuck however long it is idle', () => {
    t = 0;
    const lag = new LagTracker(1000, clock);
    lag.assign([3]);
    lag.observe(3, { position: 5, end: 5 });
    t = 1_000_000;
    expect(lag.stuck()).toEqual([]);
  });

  it('when partitions are reassigned, then only the new set is reported and clocks restart', () => {
    t = 0;
    const lag = new LagTracker(1000, clock);
    lag.assign([0, 1]);
    lag.observe(1, { position: 1, end: 9 });
    t = 5000;
    lag.assign([1, 2]);
    expect(lag.assigned()).toEqual([1, 2]);
    expect(lag.stuck()).toEqual([]);
    lag.observe(0, { position: 3, end: 4 }); // no longer ours: ignored
    expect(lag.lags().map((l) => l.partition)).toEqual([1, 2]);
  });

  it('when the end offset is unknown yet, then the lag is 0, not negative or made up', () => {
    const lag = new LagTracker(1000, clock);
    lag.assign([0]);
    lag.observe(0, { position: 7 });
    expect(lag.lags()[0]!.lag).toBe(0);
  });
});
