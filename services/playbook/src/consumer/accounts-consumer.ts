// The playbook service's consumer of the `accounts` topic (compacted, keyed by account id), in a
// group of its own that starts from the beginning: a new deployment learns every account's latest
// state. account.created records the account; account.deleted records the deletion and removes
// the account's rows (applyAccountEvent), and tells this replica's account check at once.
// A message that is not an account event is logged and skipped (nothing in it can ever apply).
// A failure to apply (Postgres down) is retried with back-off without committing; the message is
// never skipped. Applying is idempotent, so a redelivery after a crash changes nothing.
import type { Consumer, Kafka } from 'kafkajs';
import { Counter, type Registry } from 'prom-client';
import type { Db } from '@glimpse/db';
import type { Logger } from '@glimpse/logging';
import { TOPICS, accountEventSchema } from '@glimpse/messaging';
import { applyAccountEvent } from '../data/account-states.js';

export interface AccountsConsumerOptions {
  kafka: Kafka;
  db: Db;
  groupId: string;
  logger: Logger;
  registry: Registry;
  sessionTimeoutMs?: number;
  retryBackoffMs?: number;
  retryBackoffMaxMs?: number;
  /** Called after a deletion is applied (this replica's account check forgets its cached answer). */
  onDeleted?(accountId: string): void;
}

export interface AccountsConsumer {
  start(): Promise<void>;
  /** Leaves the group cleanly: the message in hand is finished (or abandoned uncommitted while retrying) first. */
  stop(): Promise<void>;
  /** Throws when the consumer is not running, or has failed to apply a message since `since`. */
  check(): void;
  consumer: Consumer;
}

export function createAccountsConsumer(options: AccountsConsumerOptions): AccountsConsumer {
  const { kafka, db, groupId, logger, registry } = options;
  const sessionTimeout = options.sessionTimeoutMs ?? 15_000;
  const heartbeatInterval = Math.min(3000, Math.floor(sessionTimeout / 3));
  const backoffFirst = options.retryBackoffMs ?? 200;
  const backoffMax = options.retryBackoffMaxMs ?? 5000;
  const consumer = kafka.consumer({ groupId, sessionTimeout, heartbeatInterval, retry: { retries: 5 } });
  const applied = new Counter({ name: 'glimpse_account_events_applied_total', help: 'Account events applied by the playbook service, by type', labelNames: ['type'] as const, registers: [registry] });
  const invalid = new Counter({ name: 'glimpse_account_events_invalid_total', help: 'Messages on the accounts topic that are no account event (skipped)', registers: [registry] });
  const failures = new Counter({ name: 'glimpse_account_events_failures_total', help: 'Failed attempts to apply an account event (retried)', registers: [registry] });
  let running = false;
  let stopping = false;
  let failingSince: number | undefined;
  let wake: (() => void) | undefined;

  consumer.on(consumer.events.CRASH, (e) => {
    logger.error({ err: e.payload.error?.message, restart: e.payload.restart }, 'accounts consumer crashed');
    running = e.payload.restart;
  });

  const pause = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });

  return {
    consumer,
    async start() {
      await consumer.connect();
      await consumer.subscribe({ topic: TOPICS.accounts, fromBeginning: true });
      await consumer.run({
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
            logger.warn({ topic: TOPICS.accounts, partition, offset: message.offset }, 'not an account event; skipped');
            return;
          }
          const event = parsed.data;
          for (let delay = backoffFirst; ; delay = Math.min(delay * 2, backoffMax)) {
            try {
              const outcome = await applyAccountEvent(db, event);
              failingSince = undefined;
              applied.inc({ type: event.type });
              if (event.type === 'account.deleted') {
                options.onDeleted?.(event.accountId.toLowerCase());
                logger.info({ accountId: event.accountId, removed: outcome.removed }, 'account deleted: its playbook data removed');
              }
              return;
            } catch (err) {
              failures.inc();
              failingSince ??= Date.now();
              logger.warn({ err: (err as Error).message?.slice(0, 300), partition, offset: message.offset }, 'account event not applied; retrying');
              // Abandoned uncommitted on stop: the next consumer of the partition applies it.
              if (stopping) throw new Error('stopping', { cause: err });
              await pause(delay);
              if (stopping) throw new Error('stopping', { cause: err });
              await heartbeat().catch(() => undefined);
            }
          }
        },
      });
      running = true;
    },
    async stop() {
      stopping = true;
      running = false;
      wake?.();
      await consumer.disconnect();
    },
    check() {
      if (!running) throw new Error('accounts consumer not running');
      if (failingSince !== undefined) throw new Error(`accounts consumer failing to apply an event for ${Math.round((Date.now() - failingSince) / 1000)} s`);
    },
  };
}
