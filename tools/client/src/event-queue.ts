// Events wait in memory and go to POST /events/batch together, as analytics libraries send them: a
// batch leaves when it has `maxBatch` events or `flushIntervalMs` after its first event, and
// flush() (or shutdown()) sends everything that waits. A batch that fails with a retryable error
// is retried by the transport with its Idempotency-Key, so no event is accepted twice; events the
// API refuses (invalid) are reported through onRejected and not retried.
import type { components } from './api-types.js';
import { GlimpseError } from './errors.js';

export type EventInput = components['schemas']['EventInput'];
export type BatchResult = components['schemas']['BatchResult'];

export interface EventQueueOptions {
  /** Events per batch, at most 500 (default 100). */
  maxBatch?: number;
  /** How long the first waiting event waits for others (default 1000 ms). */
  flushIntervalMs?: number;
  /** Events held at most; beyond it track() throws rather than grow without bound (default 10 000). */
  maxQueue?: number;
  /** An event the API refused (its {error, message}), or a batch that failed for good. */
  onRejected?(event: EventInput, error: GlimpseError): void;
}

export class EventQueue {
  private queue: EventInput[] = [];
  private timer: NodeJS.Timeout | undefined;
  private readonly sending = new Set<Promise<void>>();
  private readonly maxBatch: number;
  private readonly flushIntervalMs: number;
  private readonly maxQueue: number;

  constructor(
    private readonly send: (events: EventInput[]) => Promise<BatchResult>,
    private readonly options: EventQueueOptions = {},
  ) {
    this.maxBatch = Math.min(500, Math.max(1, options.maxBatch ?? 100));
    this.flushIntervalMs = options.flushIntervalMs ?? 1000;
    this.maxQueue = options.maxQueue ?? 10_000;
  }

  /** Events waiting to be sent. */
  get size(): number {
    return this.queue.length;
  }

  push(event: EventInput): void {
    if (this.queue.length >= this.maxQueue) throw new GlimpseError('rate_limited', `the event queue holds ${this.maxQueue} events; flush() or slow down`, 0);
    this.queue.push(event);
    if (this.queue.length >= this.maxBatch) this.sendWaiting(false);
    else this.timer ??= setTimeout(() => this.sendWaiting(true), this.flushIntervalMs).unref();
  }

  /** Sends every waiting event and waits for every batch in flight. */
  async flush(): Promise<void> {
    this.sendWaiting(true);
    while (this.sending.size > 0) await Promise.all([...this.sending]);
  }

  private sendWaiting(all: boolean): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    while (this.queue.length >= this.maxBatch || (all && this.queue.length > 0)) {
      const batch = this.queue.splice(0, this.maxBatch);
      const sent = this.sendBatch(batch).finally(() => this.sending.delete(sent));
      this.sending.add(sent);
    }
    if (this.queue.length > 0) this.timer = setTimeout(() => this.sendWaiting(true), this.flushIntervalMs).unref();
  }

  private async sendBatch(batch: EventInput[]): Promise<void> {
    try {
      const result = await this.send(batch);
      result.results.forEach((r, i) => {
        if ('error' in r) this.options.onRejected?.(batch[i]!, new GlimpseError(r.error as GlimpseError['code'], r.message, 200));
      });
    } catch (err) {
      const error = err instanceof GlimpseError ? err : new GlimpseError('network_error', (err as Error).message, 0, undefined, { cause: err });
      for (const event of batch) this.options.onRejected?.(event, error);
    }
  }
}
