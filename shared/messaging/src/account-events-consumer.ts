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
import type { Consumer, EachMessagePayload, Kafka } from 'kafkajs';
import type { Registry } from 'prom-client';
import type { Logger } from '@glimpse/logging';
import type { AccountEventMessage } from './schemas.js';
import { TOPICS } from './topics.js';
import { createEventApplier, parseAccountEvent, type EventApplier } from './account-events-consumer-apply.js';
import { createConsumerHealth, type ConsumerHealth } from './account-events-consumer-health.js';
import { createAccountEventsMetrics } from './account-events-consumer-metrics.js';
import { createWakeablePauses, waitAtMost, type WakeablePauses } from './account-events-consumer-pauses.js';
import { superviseConsumer } from './account-events-consumer-supervisor.js';

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

/** The message handler: skips (counts, logs where) what is no account event, applies the rest. */
function createMessageHandler(apply: EventApplier, invalid: { inc(): void }, logger: Logger) {
  const topic = TOPICS.accounts;
  return async ({ partition, message, heartbeat }: EachMessagePayload): Promise<void> => {
    const event = parseAccountEvent(message.value);
    if (!event) {
      invalid.inc();
      logger.warn({ topic, partition, offset: message.offset }, 'not an account event; skipped');
      return;
    }
    await apply(event, partition, message.offset, heartbeat);
  };
}

/** Resolves when the consumer crashed for good (kafkajs will not restart it) or on stop; `forget` unhooks it from stop. */
function untilEnded(c: Consumer, pauses: WakeablePauses, health: ConsumerHealth, logger: Logger): { ended: Promise<void>; forget(): void } {
  let forget = () => {};
  const ended = new Promise<void>((resolve) => {
    c.on(c.events.CRASH, (e) => {
      health.failed('consumer crashed');
      logger.error({ err: e.payload.error?.message?.slice(0, 300), restart: e.payload.restart }, 'accounts consumer crashed');
      if (!e.payload.restart) resolve();
    });
    forget = pauses.onWake(resolve);
  });
  return { ended, forget };
}

interface ConsumerLife {
  kafka: Kafka;
  groupId: string;
  sessionTimeout: number;
  pauses: WakeablePauses;
  health: ConsumerHealth;
  logger: Logger;
  eachMessage(payload: EachMessagePayload): Promise<void>;
  isStopping(): boolean;
  /** Told the consumer of this life, for stop() to disconnect it. */
  started(consumer: Consumer): void;
}

/** One consumer's life: resolves when it crashed for good or the service stops; throws when it could not start. */
async function runConsumerLife({ kafka, groupId, sessionTimeout, pauses, health, logger, eachMessage, isStopping, started }: ConsumerLife): Promise<void> {
  const topic = TOPICS.accounts;
  const heartbeatInterval = Math.min(3000, Math.floor(sessionTimeout / 3));
  const c = kafka.consumer({ groupId, sessionTimeout, heartbeatInterval, retry: { retries: 5 } });
  started(c);
  const { ended, forget } = untilEnded(c, pauses, health, logger);
  try {
    await c.connect();
    if (isStopping()) return;
    await c.subscribe({ topic, fromBeginning: true });
    await c.run({ partitionsConsumedConcurrently: 3, eachMessage });
    health.running();
    logger.info({ topic, groupId }, 'accounts consumer running');
    await ended;
  } finally {
    health.stopped();
    forget();
    await c.disconnect().catch(() => undefined);
  }
}

/** Consumer lives one after another with the service's restart back-off; counts restarts, logs failed starts. */
function superviseLives(life: ConsumerLife, options: AccountEventsConsumerOptions, restarts: { inc(): void }): Promise<void> {
  return superviseConsumer({
    runOnce: () => runConsumerLife(life),
    isStopping: life.isStopping,
    pause: life.pauses.pause,
    firstMs: options.restartBackoffMs ?? 1000,
    maxMs: options.restartBackoffMaxMs ?? 30_000,
    onRestart: () => restarts.inc(),
    onStartFailure: (err, retryInMs) => {
      life.health.failed('kafka unreachable');
      life.logger.warn({ err: (err as Error).message?.slice(0, 300), retryInMs }, 'accounts consumer could not start; retrying');
    },
  });
}

export function createAccountEventsConsumer(options: AccountEventsConsumerOptions): AccountEventsConsumer {
  const { logger } = options;
  const metrics = createAccountEventsMetrics(options.registry);
  const health = createConsumerHealth();
  const pauses = createWakeablePauses();
  let consumer: Consumer | undefined;
  let stopping = false;
  let loop: Promise<void> | undefined;
  const isStopping = () => stopping;

  const apply = createEventApplier({
    onDeleted: options.onDeleted,
    onCreated: options.onCreated,
    logger,
    applied: metrics.applied,
    failures: metrics.failures,
    health,
    retryFirstMs: options.retryBackoffMs ?? 200,
    retryMaxMs: options.retryBackoffMaxMs ?? 5000,
    pause: pauses.pause,
    isStopping,
  });
  const life: ConsumerLife = {
    kafka: options.kafka,
    groupId: options.groupId,
    sessionTimeout: options.sessionTimeoutMs ?? 15_000,
    pauses,
    health,
    logger,
    eachMessage: createMessageHandler(apply, metrics.invalid, logger),
    isStopping,
    started: (c) => {
      consumer = c;
    },
  };

  return {
    start() {
      if (loop) return;
      loop = superviseLives(life, options, metrics.restarts);
    },
    async stop() {
      stopping = true;
      health.stopped();
      pauses.wakeAll();
      if (!loop) return;
      // Leaving the group is at once; a connect that is still retrying against a dead broker is not waited out for long.
      await waitAtMost(loop, STOP_WAIT_MS);
      await consumer?.disconnect().catch(() => undefined);
    },
    check: () => health.check(),
    isRunning: () => health.isRunning(),
  };
}
