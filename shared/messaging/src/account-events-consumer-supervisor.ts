// Keeps the accounts consumer alive: runs one consumer's life after another until the service
// stops, with a doubling back-off between them, so start() never fails and never waits for Kafka.
import { doubledDelay } from './account-events-consumer-pauses.js';

export interface SupervisorOptions {
  /** One consumer's life: resolves when it ended (crashed for good, or stopping); throws when it could not start. */
  runOnce(): Promise<void>;
  isStopping(): boolean;
  pause(ms: number): Promise<void>;
  firstMs: number;
  maxMs: number;
  /** Called before every life but the first. */
  onRestart(): void;
  onStartFailure(err: unknown, retryInMs: number): void;
  now?(): number;
}

export async function superviseConsumer({
  runOnce,
  isStopping,
  pause,
  firstMs,
  maxMs,
  onRestart,
  onStartFailure,
  now = Date.now,
}: SupervisorOptions): Promise<void> {
  for (let delay = firstMs, first = true; !isStopping(); first = false) {
    if (!first) onRestart();
    const since = now();
    try {
      await runOnce();
    } catch (err) {
      onStartFailure(err, delay);
    }
    if (isStopping()) break;
    // A consumer that ran a good while starts the back-off over.
    if (now() - since > maxMs) delay = firstMs;
    await pause(delay);
    delay = doubledDelay(delay, maxMs);
  }
}
