// What the webhooks service's scheduling consumer groups (playbook.effects, visitors.identified,
// visitors.segments) share: each message becomes scheduled deliveries in Postgres, counted, and the
// dispatcher is poked to look at once. Each reads a partition without a committed offset from its
// start (an endpoint gets only what was published after it was created) and dead-letters to the
// service's own topic. Sending is the dispatcher's, so a slow endpoint never holds up a partition.
import type { Kafka } from 'kafkajs';
import { Counter, type Registry } from 'prom-client';
import type { z } from 'zod';
import type { Db } from '@glimpse/db/webhooks';
import type { Logger } from '@glimpse/logging';
import { TOPICS, createConsumerRunner, type BatchingProducer, type ConsumerRunner } from '@glimpse/messaging';
import { enqueueEffect, type EffectToEnqueue } from '../data/delivery-repository.js';

export interface SchedulingConsumerOptions {
  kafka: Kafka;
  groupId: string;
  sessionTimeoutMs?: number;
  logger: Logger;
  registry: Registry;
  db: Db;
  producer: BatchingProducer;
  retryWindowMs: number;
  /** Called after deliveries were scheduled, so the dispatcher can look at once. */
  onScheduled?(): void;
}

export interface SchedulingTopic<S extends z.ZodType> {
  topic: string;
  schema: S;
  /** The counter of deliveries scheduled from this topic. */
  metric: { name: string; help: string };
  /** Schedules the message's deliveries; returns how many. `publishedAt`: the broker's append time of the message. */
  schedule(message: z.infer<S>, publishedAt: Date): Promise<number>;
}

export function createSchedulingConsumer<S extends z.ZodType>(
  { kafka, groupId, sessionTimeoutMs, logger, registry, producer, onScheduled }: SchedulingConsumerOptions,
  { topic, schema, metric, schedule }: SchedulingTopic<S>,
): ConsumerRunner {
  const scheduled = new Counter({ ...metric, registers: [registry] });
  return createConsumerRunner({
    kafka,
    groupId,
    topic,
    schema,
    logger,
    partitionsConsumedConcurrently: 3,
    sessionTimeoutMs,
    // A partition without a committed offset is read from its start: a group starting at the end
    // skipped whatever was published while a partition moved to another replica before its first
    // commit (seen in the chaos run: effects lost at a replica's SIGKILL). Messages from before an
    // endpoint existed are not its to receive: enqueueEffect compares the append time.
    fromBeginning: true,
    // The webhooks service's own dead-letter topic: its Kafka user may write no other service's.
    deadLetter: { topic: TOPICS.webhooksDeadLetter, producer },
    async handle(message, raw) {
      const added = await schedule(message, new Date(Number(raw.timestamp)));
      if (added > 0) {
        scheduled.inc(added);
        onScheduled?.();
      }
    },
  });
}

/** A topic whose every message is one effect to schedule: a delivery to each subscribed, enabled endpoint. */
export interface EnqueueingTopic<S extends z.ZodType> extends Omit<SchedulingTopic<S>, 'schedule'> {
  /** The effect a message schedules (its publishedAt is the message's append time). */
  effectOf(message: z.infer<S>): Omit<EffectToEnqueue, 'publishedAt'>;
}

/** The scheduling consumer of an EnqueueingTopic: each message's effect is enqueued as it is (enqueueEffect). */
export function createEnqueueingConsumer<S extends z.ZodType>(options: SchedulingConsumerOptions, { effectOf, ...topic }: EnqueueingTopic<S>): ConsumerRunner {
  const { db, retryWindowMs } = options;
  return createSchedulingConsumer(options, {
    ...topic,
    schedule: (message, publishedAt) => enqueueEffect(db, { ...effectOf(message), publishedAt }, retryWindowMs),
  });
}
