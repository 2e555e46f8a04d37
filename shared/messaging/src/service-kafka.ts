// A consuming service's Kafka at start-up: the client (its brokers, TLS and SASL from its
// configuration), its batching producer, connected, and the readiness check on the topic it reads.
import type { Kafka } from 'kafkajs';
import type { KafkaConnectionConfig } from '@glimpse/config';
import type { Logger } from '@glimpse/logging';
import { createBatchingProducer, type BatchingProducer } from './batching-producer.js';
import { createKafka, kafkaSecurity } from './kafka.js';
import { createKafkaHealthCheck, type KafkaHealthCheck } from './kafka-health.js';

export interface ServiceKafkaOptions {
  config: KafkaConnectionConfig & { KAFKA_BROKERS: string[] };
  /** The service's name: brokers see the client id glimpse-<service>. */
  service: string;
  logger: Logger;
  /** The topic readiness asks a broker about. */
  healthTopic: string;
  /** Most messages in one producer request (the batching producer's default otherwise). */
  maxBatch?: number;
}

export interface ServiceKafka {
  kafka: Kafka;
  producer: BatchingProducer;
  kafkaHealth: KafkaHealthCheck;
}

export async function connectServiceKafka({ config, service, logger, healthTopic, maxBatch }: ServiceKafkaOptions): Promise<ServiceKafka> {
  const kafka = createKafka({ brokers: config.KAFKA_BROKERS, security: kafkaSecurity(config), clientId: `glimpse-${service}`, logger });
  const producer = createBatchingProducer({
    kafka,
    ...(maxBatch === undefined ? {} : { maxBatch }),
    onUnacknowledged: (messages) =>
      logger.warn({ messages }, 'kafka answered a request without acknowledging some of its messages; they failed and are sent again'),
  });
  await producer.connect();
  return { kafka, producer, kafkaHealth: createKafkaHealthCheck({ kafka, topic: healthTopic }) };
}
