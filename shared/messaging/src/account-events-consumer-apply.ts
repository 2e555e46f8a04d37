// Applying one message of the accounts topic: parsing it (anything that is no account event is
// skipped, it can never apply) and running the service's handler, retried with back-off until it
// succeeds or the service stops. A deletion is never skipped.
import type { Counter } from 'prom-client';
import type { Logger } from '@glimpse/logging';
import { accountEventSchema, type AccountEventMessage } from './schemas.js';
import type { ConsumerHealth } from './account-events-consumer-health.js';
import { doubledDelay } from './account-events-consumer-pauses.js';

/** The account event in a message's value, or undefined when it is not one (not JSON, wrong shape, empty). */
export function parseAccountEvent(value: Buffer | null | undefined): AccountEventMessage | undefined {
  let parsed;
  try {
    parsed = accountEventSchema.safeParse(JSON.parse(value?.toString('utf8') ?? ''));
  } catch {
    return undefined;
  }
  return parsed.success ? parsed.data : undefined;
}

export interface EventHandlers {
  onDeleted(accountId: string, event: AccountEventMessage): Promise<number>;
  onCreated?(accountId: string, event: AccountEventMessage): Promise<void>;
}

export interface EventApplierOptions extends EventHandlers {
  logger: Logger;
  applied: Counter<'type'>;
  failures: Counter;
  health: ConsumerHealth;
  retryFirstMs: number;
  retryMaxMs: number;
  pause(ms: number): Promise<void>;
  isStopping(): boolean;
}

export type EventApplier = (event: AccountEventMessage, partition: number, offset: string, heartbeat: () => Promise<void>) => Promise<void>;

/** Runs the handler that fits the event once; throws what the handler throws. */
async function runHandler({ onDeleted, onCreated }: EventHandlers, logger: Logger, accountId: string, event: AccountEventMessage): Promise<void> {
  if (event.type === 'account.created') {
    await onCreated!(accountId, event);
    return;
  }
  const removed = await onDeleted(accountId, event);
  logger.info({ accountId, removed }, 'account deleted: its data removed');
}

export function createEventApplier(options: EventApplierOptions): EventApplier {
  const { logger, applied, failures, health, retryFirstMs, retryMaxMs, pause, isStopping } = options;

  /** Abandoned uncommitted on stop: the next consumer of the partition applies it. */
  const abandonIfStopping = (err: unknown) => {
    if (isStopping()) throw new Error('stopping', { cause: err });
  };

  return async (event, partition, offset, heartbeat) => {
    if (event.type === 'account.created' && !options.onCreated) {
      applied.inc({ type: event.type });
      return;
    }
    const accountId = event.accountId.toLowerCase();
    for (let delay = retryFirstMs; ; delay = doubledDelay(delay, retryMaxMs)) {
      try {
        await runHandler(options, logger, accountId, event);
        health.applySucceeded();
        applied.inc({ type: event.type });
        return;
      } catch (err) {
        failures.inc();
        health.applyFailed();
        logger.warn({ err: (err as Error).message?.slice(0, 300), partition, offset }, 'account event not applied; retrying');
        abandonIfStopping(err);
        await pause(delay);
        abandonIfStopping(err);
        await heartbeat().catch(() => undefined);
      }
    }
  };
}
