// Accepting an event: it is accepted only once Kafka has acknowledged the write (acks=all); the
// raw copy then goes to Redis for 24 h. If Kafka cannot take it, nothing was accepted.
import { randomUUID } from 'node:crypto';
import { AppError } from '@glimpse/errors';
import { TOPICS, personKey, type BatchingProducer, type InboundEvent } from '@glimpse/messaging';
import type { RawEventStore } from '../data/raw-event-store.js';
import type { EventInput } from './event-input.js';

export interface AcceptEventDeps {
  producer: BatchingProducer;
  rawStore: RawEventStore;
}

export interface AcceptEventCommand {
  accountId: string;
  input: EventInput;
  idempotencyKey?: string;
}

export type AcceptEventResult = { status: 'accepted'; eventId: string } | { status: 'duplicate' };

export async function acceptEvent({ producer, rawStore }: AcceptEventDeps, { accountId, input, idempotencyKey }: AcceptEventCommand): Promise<AcceptEventResult> {
  const event: InboundEvent = {
    eventId: randomUUID(),
    accountId,
    event: input.event,
    email: input.email,
    properties: input.properties ?? {},
    receivedAt: new Date().toISOString(),
  };
  if (idempotencyKey && (await rawStore.claimIdempotencyKey(accountId, idempotencyKey, event.eventId)) === false) {
    return { status: 'duplicate' };
  }
  try {
    await producer.send(TOPICS.eventsInbound, { key: personKey(accountId, event.email), value: JSON.stringify(event) });
  } catch (err) {
    if (idempotencyKey) await rawStore.releaseIdempotencyKey(accountId, idempotencyKey);
    throw new AppError('service_unavailable', 'the event could not be recorded right now; nothing was accepted, retry later', {
      cause: err,
      headers: { 'Retry-After': '1' },
    });
  }
  await rawStore.save(event);
  return { status: 'accepted', eventId: event.eventId };
}
