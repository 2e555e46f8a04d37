// A retention job: a purge that runs soon after start and then every interval, in the background,
// logging what it deleted and shrugging off a failure until the next round. The services' purges
// (playbook's processed event ids, visitors' collected message ids) share this schedule; each keeps
// its own SQL and advisory lock.

/** The two log calls a purge makes (a service's pino logger has them). */
export interface PurgeLogger {
  info(details: object, message: string): void;
  warn(details: object, message: string): void;
}

export interface RecurringPurgeOptions {
  /** Deletes what is past its retention; returns how many rows. */
  purge: () => Promise<number>;
  intervalMs: number;
  logger: PurgeLogger;
  /** Logged with `deleted` when a round deleted anything (ids and counts only, no personal data). */
  details: object;
  deletedMessage: string;
  failedMessage: string;
}

/** The first round waits at most this long, so a restart loop still purges. */
const FIRST_ROUND_MAX_MS = 30_000;

/** Runs `purge` soon and every `intervalMs`, on timers that keep no process alive; stop() ends it. */
export function scheduleRecurringPurge({ purge, intervalMs, logger, details, deletedMessage, failedMessage }: RecurringPurgeOptions): { stop(): void } {
  async function round(): Promise<void> {
    try {
      const n = await purge();
      if (n > 0) logger.info({ deleted: n, ...details }, deletedMessage);
    } catch (err) {
      // The message only, cut short: a driver error may quote a whole statement.
      logger.warn({ err: (err as Error).message?.slice(0, 200) }, failedMessage);
    }
  }
  // A round logs its own failure and the next one retries, so the timers may drop its promise.
  const run = () => void round();
  const first = setTimeout(run, Math.min(intervalMs, FIRST_ROUND_MAX_MS));
  const timer = setInterval(run, intervalMs);
  first.unref();
  timer.unref();
  return {
    stop() {
      clearTimeout(first);
      clearInterval(timer);
    },
  };
}
