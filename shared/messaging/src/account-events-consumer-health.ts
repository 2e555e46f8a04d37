// What check() reports for the accounts consumer: whether it is running (and if not, the last
// reason why), and whether applying an event has been failing, since when.

export interface ConsumerHealth {
  running(): void;
  stopped(): void;
  /** The last reason the consumer is not running, shown by check() until it runs again. */
  failed(reason: string): void;
  applyFailed(now?: number): void;
  applySucceeded(): void;
  isRunning(): boolean;
  /** Throws a short reason when the consumer is not running, or has been failing to apply an event. */
  check(now?: number): void;
}

export function createConsumerHealth(): ConsumerHealth {
  let isRunning = false;
  let lastError: string | undefined;
  let failingSince: number | undefined;
  return {
    running() {
      isRunning = true;
      lastError = undefined;
    },
    stopped() {
      isRunning = false;
    },
    failed(reason) {
      lastError = reason;
    },
    applyFailed(now = Date.now()) {
      failingSince ??= now;
    },
    applySucceeded() {
      failingSince = undefined;
    },
    isRunning: () => isRunning,
    check(now = Date.now()) {
      if (!isRunning) throw new Error(`accounts consumer not running${lastError ? ` (${lastError})` : ''}`);
      if (failingSince !== undefined) throw new Error(`accounts consumer failing to apply an event for ${Math.round((now - failingSince) / 1000)} s`);
    },
  };
}
