// A kafkajs client whose logs go through our logger.
import { Kafka, logLevel, type LogEntry, type RetryOptions, type SASLOptions } from 'kafkajs';
import { ConfigError, type KafkaConnectionConfig } from '@glimpse/config';
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

/** Timeouts and retries under which one send of a batch is over (acknowledged or failed) within a budget. */
export interface BoundedSendSettings {
  connectionTimeout: number;
  requestTimeout: number;
  /** The client's (connections, metadata) retries. */
  clientRetry: RetryOptions;
  /** The producer's retries of a send: one, which the idempotent producer needs at least. */
  producerRetry: RetryOptions;
  /** The longest one send can take under these settings when the broker is up but silent. */
  worstCaseMs: number;
}

/**
 * Settings for a producer whose sends must end inside `sendTimeoutMs`: kafkajs cannot cancel a
 * request, so each request is bounded instead (two tries of one request timeout, a short pause
 * between), and the client does not retry connections on its own — a broker that refuses fails
 * the send at once. The batching producer hands a batch to kafkajs only while `worstCaseMs` of
 * its senders' time is left, so no send outlives the answer its client was given.
 */
export function boundedSendSettings(sendTimeoutMs: number): BoundedSendSettings {
  const pauseMs = 100;
  const requestTimeout = Math.max(100, Math.floor((sendTimeoutMs * 0.8 - pauseMs) / 2));
  return {
    connectionTimeout: Math.max(200, Math.min(3000, Math.floor(sendTimeoutMs * 0.2))),
    requestTimeout,
    clientRetry: { retries: 0 },
    producerRetry: { retries: 1, initialRetryTime: pauseMs, maxRetryTime: pauseMs, factor: 0, multiplier: 1 },
    worstCaseMs: 2 * requestTimeout + pauseMs,
  };
}

/** kafkajs warns at every idempotent producer with bounded retries; the batching producer starts a new producer id after any failed send, which is what keeps the guarantee. */
const EXPECTED_WARNINGS = [/^Limiting retries for the idempotent producer/];

export interface CreateKafkaOptions {
  brokers: string[];
  clientId: string;
  logger: Logger;
  retry?: RetryOptions;
  connectionTimeoutMs?: number;
  requestTimeoutMs?: number;
  /** TLS and SASL, from kafkaSecurity(config); plaintext without. */
  security?: KafkaSecurity;
}

export interface KafkaSecurity {
  ssl: boolean;
  sasl?: { mechanism: 'plain' | 'scram-sha-256' | 'scram-sha-512'; username: string; password: string };
}

/**
 * The TLS/SASL settings of a parsed configuration. A SASL mechanism without its user name and
 * password is a configuration error at start-up, not a connection that fails later.
 */
export function kafkaSecurity(config: KafkaConnectionConfig): KafkaSecurity {
  const { KAFKA_SSL: ssl, KAFKA_SASL_MECHANISM: mechanism, KAFKA_SASL_USERNAME: username, KAFKA_SASL_PASSWORD: password } = config;
  if (!mechanism) return { ssl };
  if (!username || !password) throw new ConfigError('invalid configuration: KAFKA_SASL_MECHANISM needs KAFKA_SASL_USERNAME and KAFKA_SASL_PASSWORD');
  return { ssl, sasl: { mechanism, username, password } };
}

export function createKafka({
  brokers,
  clientId,
  logger,
  retry = DEFAULT_RETRY,
  connectionTimeoutMs = 3000,
  requestTimeoutMs = 10_000,
  security,
}: CreateKafkaOptions): Kafka {
  const kafkaLogger = logger.child({ component: 'kafkajs' });
  return new Kafka({
    clientId,
    brokers,
    ...(security?.ssl ? { ssl: true } : {}),
    // kafkajs types each mechanism apart; the three we accept share this shape.
    ...(security?.sasl ? { sasl: security.sasl as SASLOptions } : {}),
    connectionTimeout: connectionTimeoutMs,
    requestTimeout: requestTimeoutMs,
    retry,
    logLevel: logLevel.WARN,
    logCreator:
      () =>
      ({ namespace, level, log }: LogEntry) => {
        const { message, ...extra } = log;
        if (EXPECTED_WARNINGS.some((p) => p.test(message))) return;
        kafkaLogger[LEVELS[level] ?? 'info']({ namespace, ...extra }, message);
      },
  });
}
