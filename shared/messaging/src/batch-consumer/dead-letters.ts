// Dead letters: the original key and value, and where it came from and why in headers (the reason
// is codes only, never a value from the message).
import type { KafkaMessage } from 'kafkajs';
import type { Logger } from '@glimpse/logging';
import type { BatchingProducer } from '../batching-producer.js';
import type { PartitionLease, UntilDone } from './partition-lease.js';

export function deadLetterHeaders(sourceTopic: string, partition: number, message: KafkaMessage, reason: string, attempts: number): Record<string, string> {
  return {
    'x-source-topic': sourceTopic,
    'x-source-partition': String(partition),
    'x-source-offset': message.offset,
    'x-reason': reason,
    'x-attempts': String(attempts),
  };
}

export interface DeadLettersOptions {
  producer: BatchingProducer;
  topic: string;
  deadLetterTopic: string;
  logger: Logger;
  untilDone: UntilDone;
  /** After a message is in the dead-letter topic (counted as the outcome dead_letter). */
  onDeadLetter?(): void;
}

export type DeadLetter = (message: KafkaMessage, reason: string, attempts: number, lease: PartitionLease) => Promise<void>;

/** Sends a message to the dead-letter topic, retried until done while the partition is ours. */
export function createDeadLetters(o: DeadLettersOptions): DeadLetter {
  return async (message, reason, attempts, lease) => {
    const { partition } = lease;
    o.logger.warn({ topic: o.topic, partition, offset: message.offset, reason, attempts }, 'message sent to dead-letter topic');
    await o.untilDone(
      () =>
        o.producer.send(o.deadLetterTopic, {
          key: message.key,
          value: message.value,
          headers: deadLetterHeaders(o.topic, partition, message, reason, attempts),
        }),
      lease,
    );
    o.onDeadLetter?.();
  };
}
