// A service's consumer of the `accounts` topic (compacted, keyed by account id) in a group of its
// own, from the beginning: a new deployment learns every deletion the topic still holds. Each
// service passes what a deletion means for its own tables, and what a creation means if anything.
//
// - A message that is not an account event is counted, logged (partition and offset only, never
//   its content) and skipped: nothing in it can ever apply.
// - A deletion that fails to apply (Postgres away) is retried with back-off and not committed; it
//   is never skipped. Applying must be idempotent: a redelivery after a crash changes nothing.
// - The consumer supervises itself: if Kafka is unreachable at start, or kafkajs gives up on the
//   consumer (a crash it does not restart), a fresh consumer is started after a back-off. So
//   start() never fails and never waits for Kafka; check() says whether it is running.
import type { Consumer, Kafka } from 'kafkajs';
import { Counter, type Registry } from 'prom-client';
import type { Logger } from '@glimpse/logging';
import { accountEventSchema, type AccountEventMessage } from './schemas.js';
import { TOPICS } from './topics.js';

export interface AccountEventsConsumerOptions {
  kafka: Kafka;
  groupId: string;
  logger: Logger;
  registry: Registry;
  /** Removes the account's data from this service's tables; idempotent. Returns how many rows went (for the log). */
  onDeleted(accountId: string, event: AccountEventMessage): Promise<number>;
  /** Records a new account, if the service keeps anything of it; idempotent. Retried like a deletion. */
  onCreated?(accountId: string, event: AccountEventMessage): Promise<void>;
  sessionTimeoutMs?: number;
  /** Back-off between attempts to apply one event: doubles from the first to the most. */
  retryBackoffMs?: number;
  retryBackoffMaxMs?: number;
  /** Back-off between attempts to (re)start the consumer when Kafka is away. */
  restartBackoffMs?: number;
  restartBackoffMaxMs?: number;
}

export interface AccountEventsConsumer {
  /** Starts consuming in the background (retrying until Kafka answers); resolves at once. */
  start(): void;
  /** Leaves the group: the message in hand is finished (or abandoned uncommitted while retrying) first. */
  stop(): Promise<void>;
  /** Throws a short reason when the consumer is not running, or has been failing to apply an event. */
  check(): void;
  isRunning(): boolean;
}

const STOP_WAIT_MS = 10_000;

export function createAccountEventsConsumer(options: AccountEventsConsumerOptions): AccountEventsConsumer {
  const { kafka, groupId, logger, registry, onDeleted, onCreated } = options;
  const topic = TOPICS.accounts;
  const sessionTimeout = options.sessionTimeoutMs ?? 15_000;
  const heartbeatInterval = Math.min(3000, Math.floor(sessionTimeout / 3));
  const retryFirst = options.retryBackoffMs ?? 200;
  const retryMax = options.retryBackoffMaxMs ?? 5000;
  const restartFirst = options.restartBackoffMs ?? 1000;
  const restartMax = options.restartBackoffMaxMs ?? 30_000;

  const applied = new Counter({ name: 'glimpse_account_events_applied_total', help: 'Account events applied, by type', labelNames: ['type'] as const, registers: [registry] });
  const invalid = new Counter({ name: 'glimpse_account_events_invalid_total', help: 'Messages on the accounts topic that are no account event (skipped)', registers: [registry] });
  const failures = new Counter({ name: 'glimpse_account_events_failures_total', help: 'Failed attempts to apply an account event (retried)', registers: [registry] });
  const restarts = new Counter({ name: 'glimpse_account_events_consumer_restarts_total', help: 'Times the accounts consumer was started again after Kafka was unreachable or the consumer crashed', registers: [registry] });

  let consumer: Consumer | undefined;
  let running = false;
  let stopping = false;
  let failingSince: number | undefined;
  let lastError: string | undefined;
  let loop: Promise<void> | undefined;
  const wakers = new Set<() => void>();
  const wakeAll = () => {
    for (const wake of [...wakers]) wake();
  };

  const pause = (ms: number) =>
    new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        wakers.delete(done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      wakers.add(done);
    });

  async function apply(event: AccountEventMessage, partition: number, offset: string, heartbeat: () => Promise<void>): Promise<void> {
    if (event.type === 'account.created' && !onCreated) {
      applied.inc({ type: event.type });
      return;
    }
    const accountId = event.accountId.toLowerCase();
    for (let delay = retryFirst; ; delay = Math.min(delay * 2, retryMax)) {
      try {
        if (event.type === 'account.created') {
          await onCreated!(accountId, event);
        } else {
          const removed = await onDeleted(accountId, event);
          logger.info({ accountId, removed }, 'account deleted: its data removed');
        }
        failingSince = undefined;
        applied.inc({ type: event.type });
        return;
      } catch (err) {
        failures.inc();
        failingSince ??= Date.now();
        logger.warn({ err: (err as Error).message?.slice(0, 300), partition, offset }, 'account event not applied; retrying');
        // Abandoned uncommitted on stop: the next consumer of the partition applies it.
        if (stopping) throw new Error('stopping', { cause: err });
        await pause(delay);
        if (stopping) throw new Error('stopping', { cause: err });
        await heartbeat().catch(() => undefined);
      }
    }
  }

  /** One consumer's life: resolves when it crashed for good or the service stops; throws when it could not start. */
  async function runOnce(): Promise<void> {
    const c = kafka.consumer({ groupId, sessionTimeout, heartbeatInterval, retry: { retries: 5 } });
    consumer = c;
    let onStop: (() => void) | undefined;
    const ended = new Promise<void>((resolve) => {
      c.on(c.events.CRASH, (e) => {
        lastError = 'consumer crashed';
        logger.error({ err: e.payload.error?.message?.slice(0, 300), restart: e.payload.restart }, 'accounts consumer crashed');
        if (!e.payload.restart) resolve();
      });
      onStop = resolve;
      wakers.add(resolve);
    });
    try {
      await c.connect();
      if (stopping) return;
      await c.subscribe({ topic, fromBeginning: true });
      await c.run({
        partitionsConsumedConcurrently: 3,
        eachMessage: async ({ partition, message, heartbeat }) => {
          let parsed;
          try {
            parsed = accountEventSchema.safeParse(JSON.parse(message.value?.toString('utf8') ?? ''));
          } catch {
            parsed = undefined;
          }
          if (!parsed?.success) {
            invalid.inc();
            logger.warn({ topic, partition, offset: message.offset }, 'not an account event; skipped');
            return;
          }
          await apply(parsed.data, partition, message.offset, heartbeat);
        },
      });
      running = true;
      lastError = undefined;
      logger.info({ topic, groupId }, 'accounts consumer running');
      await ended;
    } finally {
      running = false;
      if (onStop) wakers.delete(onStop);
      await c.disconnect().catch(() => undefined);
    }
  }

  return {
    start() {
      if (loop) return;
      loop = (async () => {
        for (let delay = restartFirst, first = true; !stopping; first = false) {
          if (!first) restarts.inc();
          const since = Date.now();
          try {
            await runOnce();
          } catch (err) {
            lastError = 'kafka unreachable';
            logger.warn({ err: (err as Error).message?.slice(0, 300), retryInMs: delay }, 'accounts consumer could not start; retrying');
          }
          if (stopping) break;
          // A consumer that ran a good while starts the back-off over.
          if (Date.now() - since > restartMax) delay = restartFirst;
          await pause(delay);
          delay = Math.min(delay * 2, restartMax);
        }
      })();
    },
    async stop() {
      stopping = true;
      running = false;
      wakeAll();
      if (!loop) return;
      // Leaving the group is at once; a connect that is still retrying against a dead broker is not waited out for long.
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, STOP_WAIT_MS);
      });
      await Promise.race([loop, late]).finally(() => clearTimeout(timer));
      await consumer?.disconnect().catch(() => undefined);
    },
    check() {
      if (!running) throw new Error(`accounts consumer not running${lastError ? ` (${lastError})` : ''}`);
      if (failingSince !== undefined) throw new Error(`accounts consumer failing to apply an event for ${Math.round((Date.now() - failingSince) / 1000)} s`);
    },
    isRunning: () => running,
  };
}
