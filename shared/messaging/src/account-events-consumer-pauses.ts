// Back-off sleeps that stop() can cut short: every pause in progress (and every wait registered
// with onWake) ends at once when wakeAll() is called, so leaving the group never waits out a back-off.

export interface WakeablePauses {
  /** Resolves after `ms`, or at once when wakeAll() is called first. */
  pause(ms: number): Promise<void>;
  /** Calls `wake` on the next wakeAll(); returns a function that forgets it. */
  onWake(wake: () => void): () => void;
  wakeAll(): void;
}

export function createWakeablePauses(): WakeablePauses {
  const wakers = new Set<() => void>();
  const onWake = (wake: () => void) => {
    wakers.add(wake);
    return () => {
      wakers.delete(wake);
    };
  };
  return {
    pause: (ms) =>
      new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(timer);
          forget();
          resolve();
        };
        const timer = setTimeout(done, ms);
        const forget = onWake(done);
      }),
    onWake,
    wakeAll() {
      for (const wake of [...wakers]) wake();
    },
  };
}

/** The next back-off: doubled, never past `maxMs`. */
export function doubledDelay(delayMs: number, maxMs: number): number {
  return Math.min(delayMs * 2, maxMs);
}

/** Waits for `work`, but no longer than `ms`; never rejects because of the time limit. */
export async function waitAtMost(work: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, ms);
  });
  await Promise.race([work, late]).finally(() => clearTimeout(timer));
}
