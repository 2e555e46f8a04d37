// Whether a failed apply is an outage (retry the chunk whole) rather than the messages' fault.
// The store stays the caller's: it passes a probe (e.g. `() => db.$queryRawUnsafe('SELECT 1')`),
// so this package needs no database client.

/** True when `probe` answers within `timeoutMs`. */
export async function answersWithin(probe: () => Promise<unknown>, timeoutMs = 2000): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([probe(), new Promise((_, reject) => (timer = setTimeout(() => reject(new Error('timeout')), timeoutMs)))]);
    return true;
  } catch {
    return false;
  } finally {
    clearTimeout(timer);
  }
}

export interface OutageCheckOptions {
  /** Errors that say by themselves that a dependency is down or timed out (connection refused, a transaction timeout). */
  known(err: unknown): boolean;
  /** Asks the store whether it answers now; a failure while it does not is an outage. */
  probe(): Promise<unknown>;
  probeTimeoutMs?: number;
}

/** An `isOutage` for createBatchConsumer: a known dependency failure, or the store not answering now. */
export function outageCheck(o: OutageCheckOptions): (err: unknown) => Promise<boolean> {
  return async (err) => o.known(err) || !(await answersWithin(o.probe, o.probeTimeoutMs));
}
