// When the credentials database last failed: for `retryMs` after a failure no look-up is tried
// (a hanging database does not make every request wait for its connect timeout), and for a while
// longer (`suspect`) a known credential is refreshed in the background while its last answer is served.

export interface DbFailureWindow {
  failed(now?: number): void;
  /** Within `retryMs` of the last failure: no look-up is tried. */
  isFailing(now?: number): boolean;
  /** Within max(retryMs, 30 s) of the last failure: known credentials do not wait on a refresh. */
  isSuspect(now?: number): boolean;
}

export function createDbFailureWindow(retryMs: number): DbFailureWindow {
  const suspectMs = Math.max(retryMs, 30_000);
  let failingUntil = 0;
  let lastFailureAt = -Infinity;
  return {
    failed(now = Date.now()) {
      lastFailureAt = now;
      failingUntil = now + retryMs;
    },
    isFailing: (now = Date.now()) => now < failingUntil,
    isSuspect: (now = Date.now()) => now - lastFailureAt < suspectMs,
  };
}
