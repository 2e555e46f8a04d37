import { nextAttemptAt, retryDelayMs, shouldDisable } from './retry-schedule';

const settings = { baseMs: 10_000, maxDelayMs: 3 * 3600_000 };
const mid = () => 0.5;

describe('retry schedule', () => {
  it('when attempts keep failing, then each wait doubles until the cap', () => {
    expect([1, 2, 3, 4].map((n) => retryDelayMs(n, settings, mid))).toEqual([10_000, 20_000, 40_000, 80_000]);
    expect(retryDelayMs(30, settings, mid)).toBe(3 * 3600_000);
  });

  it('when jitter applies, then a wait stays within ±20 % of its step', () => {
    expect(retryDelayMs(2, settings, () => 0)).toBe(16_000);
    expect(retryDelayMs(2, settings, () => 1)).toBe(24_000);
  });

  it('when the next attempt would fall after the window, then the delivery gives up', () => {
    const now = new Date('2026-01-01T00:00:00Z');
    expect(nextAttemptAt(1, now, new Date(now.getTime() + 60_000), settings, mid)).toEqual(new Date(now.getTime() + 10_000));
    expect(nextAttemptAt(3, now, new Date(now.getTime() + 30_000), settings, mid)).toBeNull();
  });

  it('over 24 h with the defaults, a delivery is tried about a dozen times', () => {
    let t = 0;
    let attempts = 1;
    while (t + retryDelayMs(attempts, settings, mid) <= 24 * 3600_000) t += retryDelayMs(attempts++, settings, mid);
    expect(attempts).toBeGreaterThanOrEqual(10);
    expect(attempts).toBeLessThanOrEqual(20);
  });

  it('when an endpoint has failed for the disable period, then it is disabled, not before', () => {
    const since = new Date('2026-01-01T00:00:00Z');
    expect(shouldDisable(since, new Date(since.getTime() + 86_399_999), 86_400_000)).toBe(false);
    expect(shouldDisable(since, new Date(since.getTime() + 86_400_000), 86_400_000)).toBe(true);
  });
});
