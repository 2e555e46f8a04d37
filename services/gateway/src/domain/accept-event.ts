// Accepting an event: it is accepted only once Kafka has acknowledged the write (acks=all); the
// raw copy then goes to Redis for 24 h. If Kafka cannot take it, the client is told to retry.
import { createHash, randomUUID } from 'node:crypto';
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

/**
 * With an Idempotency-Key the event id is derived from it, so every retry of one event carries
 * the same id and the playbook service applies it once — even if a write the gateway gave up on
 * (503) reaches Kafka later after all.
 */
export function eventIdFor(accountId: string, idempotencyKey: string | undefined): string {
  if (!idempotencyKey) return randomUUID();
  const h = createHash('sha256').update(`${accountId}:${idempotencyKey}`).digest('hex');
  const variant = ((parseInt(h[16]!, 16) & 0x3) | 0x8).toString(16);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

export async function acceptEvent({ producer, rawStore }: AcceptEventDeps, { accountId, input, idempotencyKey }: AcceptEventCommand): Promise<AcceptEventResult> {
  const event: InboundEvent = {
    eventId: eventIdFor(accountId, idempotencyKey),
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
    throw new AppError('service_unavailable', 'the event could not be recorded right now; nothing was accepted, retry later (with the same Idempotency-Key a retry is never applied twice)', {
      cause: err,
      headers: { 'Retry-After': '1' },
    });
  }
  await rawStore.save(event);
  return { status: 'accepted', eventId: event.eventId };
}
