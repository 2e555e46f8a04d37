// The gateway's Kafka producer, connecting in the background (the gateway is unready until it
// is), and the health check /readyz asks.
import type { Registry } from 'prom-client';
import { metricsIn, type Logger } from '@glimpse/logging';
import {
  TOPICS,
  boundedSendSettings,
  createBatchingProducer,
  createKafka,
  createKafkaHealthCheck,
  kafkaSecurity,
  type BatchingProducer,
  type KafkaHealthCheck,
} from '@glimpse/messaging';
import type { GatewayConfig } from './config.js';

export async function startKafkaProducer(
  config: GatewayConfig,
  logger: Logger,
  registry: Registry,
): Promise<{ producer: BatchingProducer; kafkaHealth: KafkaHealthCheck }> {
  // Each Kafka request is bounded so that a whole send ends inside the send timeout: a client told
  // 503 is never followed by the write landing after all.
  const send = boundedSendSettings(config.KAFKA_SEND_TIMEOUT_MS);
  const kafka = createKafka({
    brokers: config.KAFKA_BROKERS,
    security: kafkaSecurity(config),
    clientId: 'glimpse-gateway',
    logger,
    retry: send.clientRetry,
    connectionTimeoutMs: send.connectionTimeout,
    requestTimeoutMs: send.requestTimeout,
  });
  const lateAcks = metricsIn(registry).counter(
    'glimpse_kafka_late_acknowledgements_total',
    'Events Kafka acknowledged after their client had been answered 503',
  );
  const unacknowledged = metricsIn(registry).counter(
    'glimpse_kafka_unacknowledged_total',
    'Events of a request Kafka answered without acknowledging their partition (answered 503, not lost)',
  );
  const producer = createBatchingProducer({
    kafka,
    lingerMs: config.KAFKA_LINGER_MS,
    maxBatch: config.KAFKA_MAX_BATCH,
    maxBatchBytes: config.KAFKA_MAX_BATCH_BYTES,
    sendTimeoutMs: config.KAFKA_SEND_TIMEOUT_MS,
    requestBudgetMs: send.worstCaseMs,
    retry: send.producerRetry,
    onLateAcknowledgement: (n) => {
      lateAcks.inc(n);
      logger.warn({ events: n }, 'kafka acknowledged events after their clients were answered 503');
    },
    onUnacknowledged: (n) => {
      unacknowledged.inc(n);
      logger.warn({ events: n }, 'kafka answered a request without acknowledging the partitions of some of its events; they were answered 503');
    },
  });
  if (!(await producer.startConnecting())) logger.warn('kafka not reachable at start; unready until it is, connecting in the background');
  return { producer, kafkaHealth: createKafkaHealthCheck({ kafka, topic: TOPICS.eventsInbound }) };
}
