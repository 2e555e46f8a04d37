// The consumer group on events.inbound: each valid message goes through applyEvent; invalid ones
// go to the dead-letter topic (see createConsumerRunner).
import type { Kafka } from 'kafkajs';
import { Counter, type Registry } from 'prom-client';
import type { Logger } from '@glimpse/logging';
import { TOPICS, createConsumerRunner, inboundEventSchema, type BatchingProducer } from '@glimpse/messaging';
import { applyEvent, type ApplyEventDeps } from '../domain/apply-event.js';
import { cachedAccountCheck } from '../data/event-effects-repository.js';

export interface InboundEventsConsumerOptions extends ApplyEventDeps {
  kafka: Kafka;
  groupId: string;
  concurrency: number;
  sessionTimeoutMs?: number;
  logger: Logger;
  registry: Registry;
  producer: BatchingProducer;
}

export function createInboundEventsConsumer({ kafka, groupId, concurrency, sessionTimeoutMs, logger, registry, db, producer }: InboundEventsConsumerOptions) {
  const processed = new Counter({
    name: 'glimpse_events_processed_total',
    help: 'Inbound events handled by the playbook service, by outcome',
    labelNames: ['outcome'] as const,
    registers: [registry],
  });
  const accounts = cachedAccountCheck(db);
  return createConsumerRunner({
    kafka,
    groupId,
    topic: TOPICS.eventsInbound,
    schema: inboundEventSchema,
    logger,
    partitionsConsumedConcurrently: concurrency,
    sessionTimeoutMs,
    deadLetter: { topic: TOPICS.eventsDeadLetter, producer },
    onDeadLetter: () => processed.inc({ outcome: 'dead_letter' }),
    async handle(event) {
      const outcome = await applyEvent({ db, producer, accounts }, event);
      processed.inc({ outcome });
      if (outcome === 'unknown_account') logger.debug({ eventId: event.eventId }, 'event for an unknown account skipped');
    },
  });
}
