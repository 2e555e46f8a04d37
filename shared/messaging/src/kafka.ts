// A kafkajs client whose logs go through our logger.
import { Kafka, logLevel, type LogEntry, type RetryOptions } from 'kafkajs';
import type { Logger } from '@glimpse/logging';

const LEVELS: Record<number, 'error' | 'warn' | 'info' | 'debug'> = {
  [logLevel.ERROR]: 'error',
  [logLevel.WARN]: 'warn',
  [logLevel.INFO]: 'info',
  [logLevel.DEBUG]: 'debug',
};

const DEFAULT_RETRY: RetryOptions = { initialRetryTime: 200, retries: 5, maxRetryTime: 5000 };

/**
 * Retry settings for sends that must be over within budgetMs. kafkajs nests its retriers (a send
 * is retried, and each try retries the broker connection with the client's settings), so the
 * backoff of every level is kept to a fraction of the budget: a send to an unreachable broker has
 * given up before the caller's timeout, and nothing is written after the caller was told it failed.
 */
export function retryWithin(budgetMs: number): RetryOptions {
  const factor = 0.2;
  const multiplier = 2;
  const initialRetryTime = 50;
  const maxRetryTime = Math.max(initialRetryTime, Math.floor(budgetMs / 8));
  const worstBackoff = (retries: number) => {
    let total = 0;
    for (let k = 0, wait = initialRetryTime * (1 + factor); k < retries; k++, wait = Math.min(wait * (1 + factor) * multiplier, maxRetryTime)) total += wait;
    return total;
  };
  let retries = 0;
  while (retries < 5 && (retries + 3) * worstBackoff(retries + 1) <= budgetMs / 4) retries++;
  return { initialRetryTime, maxRetryTime, retries, factor, multiplier };
}

export function createKafka({ brokers, clientId, logger, retry = DEFAULT_RETRY }: { brokers: string[]; clientId: string; logger: Logger; retry?: RetryOptions }): Kafka {
  const kafkaLogger = logger.child({ component: 'kafkajs' });
  return new Kafka({
    clientId,
    brokers,
    connectionTimeout: 3000,
    requestTimeout: 10_000,
    retry,
    logLevel: logLevel.WARN,
    logCreator: () => ({ namespace, level, log }: LogEntry) => {
      const { message, ...extra } = log;
      kafkaLogger[LEVELS[level] ?? 'info']({ namespace, ...extra }, message);
    },
  });
}
