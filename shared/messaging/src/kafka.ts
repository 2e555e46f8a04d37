// A kafkajs client whose logs go through our logger.
import { Kafka, logLevel, type LogEntry } from 'kafkajs';
import type { Logger } from '@glimpse/logging';

const LEVELS: Record<number, 'error' | 'warn' | 'info' | 'debug'> = {
  [logLevel.ERROR]: 'error',
  [logLevel.WARN]: 'warn',
  [logLevel.INFO]: 'info',
  [logLevel.DEBUG]: 'debug',
};

export function createKafka({ brokers, clientId, logger }: { brokers: string[]; clientId: string; logger: Logger }): Kafka {
  const kafkaLogger = logger.child({ component: 'kafkajs' });
  return new Kafka({
    clientId,
    brokers,
    connectionTimeout: 3000,
    requestTimeout: 10_000,
    retry: { initialRetryTime: 200, retries: 5, maxRetryTime: 5000 },
    logLevel: logLevel.WARN,
    logCreator: () => ({ namespace, level, log }: LogEntry) => {
      const { message, ...extra } = log;
      kafkaLogger[LEVELS[level] ?? 'info']({ namespace, ...extra }, message);
    },
  });
}
