// When a failed delivery is tried again: exponential back-off with jitter, within a retry window.
export interface RetrySettings {
  baseMs: number;
  maxDelayMs: number;
}

/** The wait after the n-th failed attempt (n ≥ 1): base·2^(n-1), at most maxDelay, ±20 %. */
export function retryDelayMs(failedAttempts: number, { baseMs, maxDelayMs }: RetrySettings, random: () => number = Math.random): number {
  const exponential = Math.min(maxDelayMs, baseMs * 2 ** Math.min(failedAttempts - 1, 40));
  return Math.max(1, Math.round(exponential * (0.8 + 0.4 * random())));
}

/** The next attempt's time, or null when it would fall after the delivery's window: give up. */
export function nextAttemptAt(failedAttempts: number, now: Date, expiresAt: Date, settings: RetrySettings, random?: () => number): Date | null {
  const next = new Date(now.getTime() + retryDelayMs(failedAttempts, settings, random));
  return next.getTime() > expiresAt.getTime() ? null : next;
}

/** An endpoint failing continuously since `failingSince` is disabled once that lasts `disableAfterMs`. */
export function shouldDisable(failingSince: Date, now: Date, disableAfterMs: number): boolean {
  return now.getTime() - failingSince.getTime() >= disableAfterMs;
}
