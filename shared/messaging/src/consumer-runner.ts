// Runs a consumer group over one topic. A handler that throws leaves the offset uncommitted
// (kafkajs retries, then restarts the consumer from it). A message that fails validation can
// never succeed, so it goes to the dead-letter topic and is committed.
import type { Consumer, Kafka, KafkaMessage } from 'kafkajs';
import type { z } from 'zod';
import type { Logger } from '@glimpse/logging';
import type { BatchingProducer } from './batching-producer.js';

export interface ConsumerRunnerOptions<S extends z.ZodType> {
  kafka: Kafka;
  groupId: string;
  topic: string;
  schema: S;
  handle(message: z.infer<S>, raw: KafkaMessage): Promise<void>;
  deadLetter: { topic: string; producer: BatchingProducer };
  logger: Logger;
  partitionsConsumedConcurrently?: number;
  fromBeginning?: boolean;
  /** How long the group waits for a silent member before reassigning its partitions (Kafka's minimum is 6000). */
  sessionTimeoutMs?: number;
  onDeadLetter?(): void;
}

export interface ConsumerRunner {
  start(): Promise<void>;
  /** Leaves the group cleanly: finishes the message in hand, commits, disconnects. */
  stop(): Promise<void>;
  isRunning(): boolean;
  consumer: Consumer;
}

export function createConsumerRunner<S extends z.ZodType>(options: ConsumerRunnerOptions<S>): ConsumerRunner {
  const { kafka, groupId, topic, schema, handle, deadLetter, logger } = options;
  const sessionTimeout = options.sessionTimeoutMs ?? 15_000;
  // Heartbeats at most a third of the session apart, so one late heartbeat does not cost the membership.
  const heartbeatInterval = Math.min(3000, Math.floor(sessionTimeout / 3));
  const consumer = kafka.consumer({ groupId, sessionTimeout, heartbeatInterval, retry: { retries: 5 } });
  let running = false;
  consumer.on(consumer.events.CRASH, (e) => {
    logger.error({ err: e.payload.error, restart: e.payload.restart }, 'consumer crashed');
    running = e.payload.restart;
  });

  function parse(raw: KafkaMessage): z.infer<S> | { invalid: string } {
    try {
      const parsed = schema.safeParse(JSON.parse(raw.value?.toString('utf8') ?? ''));
      return parsed.success ? parsed.data : { invalid: parsed.error.issues.map((i) => i.path.join('.') + ': ' + i.message).join('; ') };
    } catch {
      return { invalid: 'not JSON' };
    }
  }

  return {
    consumer,
    async start() {
      await consumer.connect();
      await consumer.subscribe({ topic, fromBeginning: options.fromBeginning ?? true });
      await consumer.run({
        partitionsConsumedConcurrently: options.partitionsConsumedConcurrently ?? 3,
        eachMessage: async ({ partition, message }) => {
          const parsed = parse(message);
          if (parsed && typeof parsed === 'object' && 'invalid' in parsed) {
            logger.warn({ topic, partition, offset: message.offset, reason: parsed.invalid }, 'message sent to dead-letter topic');
            await deadLetter.producer.send(deadLetter.topic, {
              key: message.key,
              value: message.value,
              headers: { 'x-source-topic': topic, 'x-source-partition': String(partition), 'x-source-offset': message.offset, 'x-reason': parsed.invalid },
            });
            options.onDeadLetter?.();
            return;
          }
          await handle(parsed as z.infer<S>, message);
        },
      });
      running = true;
    },
    async stop() {
      running = false;
      await consumer.disconnect();
    },
    isRunning: () => running,
  };
}
