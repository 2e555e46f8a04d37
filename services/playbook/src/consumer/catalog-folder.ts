import type { Logger } from '@glimpse/logging';

/**
 * Folds the catalog changes of applied batches into event_names (`fold`: foldCatalog, which adds an
 * account's new names only while its catalog has room): after a batch (at most one fold in flight
 * per process, one more queued) and every `everyMs`, for what another replica's fold skipped. A
 * failed fold is retried by the next one; the changes wait in event_name_deltas.
 */
export function catalogFolder(fold: () => Promise<unknown>, logger: Logger, { everyMs = 1000 }: { everyMs?: number } = {}) {
  let running: Promise<void> | undefined;
  let again = false;
  const run = (): void => {
    if (running) {
      again = true;
      return;
    }
    running = fold()
      .then(
        () => undefined,
        (err: unknown) => logger.warn({ err: (err as Error).message?.slice(0, 200) }, 'catalog fold failed; the next one retries'),
      )
      .finally(() => {
        running = undefined;
        if (again) {
          again = false;
          run();
        }
      });
  };
  const timer = setInterval(run, everyMs);
  timer.unref();
  return {
    kick: run,
    async stop() {
      clearInterval(timer);
      again = false;
      await running;
      // What this process applied last is folded before it goes.
      await fold().catch(() => undefined);
    },
  };
}
