// Runs a service as a process: starts it, and on SIGTERM/SIGINT stops taking work, drains and
// exits; a stop that hangs past the grace period exits non-zero so the orchestrator can move on.
import { createLogger } from '@glimpse/logging';

export interface Stoppable {
  stop(): Promise<void>;
}

export function runService(name: string, start: () => Promise<Stoppable>, { graceMs = 15_000 } = {}): void {
  const logger = createLogger({ service: name });
  let running: Stoppable | undefined;
  let stopping = false;

  async function shutdown(signal: string): Promise<void> {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    const timer = setTimeout(() => {
      logger.error({ graceMs }, 'shutdown timed out');
      process.exit(1);
    }, graceMs);
    timer.unref();
    try {
      await running?.stop();
      process.exit(0);
    } catch (err) {
      logger.error({ err }, 'shutdown failed');
      process.exit(1);
    }
  }

  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('unhandledRejection', (err) => logger.error({ err }, 'unhandled rejection'));

  start().then(
    (service) => {
      running = service;
      if (stopping) void service.stop();
    },
    (err: unknown) => {
      logger.fatal({ err }, 'failed to start');
      process.exit(1);
    },
  );
}
