// Accepting an event: it is accepted only once Kafka has acknowledged the write (acks=all); the
// raw copy then goes to Redis for 24 h. If Kafka cannot take it, the client is told to retry.
//
// With an Idempotency-Key the key is bound to the event's fingerprint: the same key with another
// body is refused (422); a retry while the first send is in flight waits for its outcome (up to
// `inFlightWaitMs`, then 409), and is never told 200 for an event that may yet fail; a failed send
// frees the key for the retry.
import { createHash, randomUUID } from 'node:crypto';
import { AppError } from '@glimpse/errors';
import { KafkaUnavailableError, TOPICS, personKey, type BatchingProducer, type InboundEvent } from '@glimpse/messaging';
import { claimIdempotencyKey } from './claim-idempotency-key.js';
import type { EventInput } from './event-input.js';
import type { IdempotencyStore } from './idempotency-store.js';

/** Where the accepted event's raw copy goes (data/raw-event-store.ts: Redis, 24 h); false when it was not kept. */
export interface RawEventCopies {
  save(event: InboundEvent): Promise<boolean>;
}

export interface AcceptEventDeps {
  producer: BatchingProducer;
  rawStore: RawEventCopies;
  idempotency: IdempotencyStore;
  /** How long a retry waits for a first send of its key still in flight. */
  inFlightWaitMs: number;
}

export interface AcceptEventCommand {
  accountId: string;
  input: EventInput;
  idempotencyKey?: string;
}

/** A duplicate (a retry with the same Idempotency-Key and event) carries the first one's id. */
export type AcceptEventResult = { status: 'accepted' | 'duplicate'; eventId: string };

/** The event as its content, independent of JSON key order: what an Idempotency-Key is bound to. */
export function eventFingerprint(input: EventInput): string {
  const properties = Object.entries(input.properties ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return createHash('sha256')
    .update(JSON.stringify([input.event, input.email, properties]))
    .digest('base64url');
}

/**
 * With an Idempotency-Key the event id is derived from it and the event's fingerprint, so every
 * retry of one event carries the same id and the playbook service applies it once — even if a
 * write the gateway gave up on (503) reaches Kafka later after all, or Redis was down — while
 * another event sent with the same key is never taken for it.
 */
export function eventIdFor(accountId: string, idempotencyKey: string | undefined, fingerprint = ''): string {
  if (!idempotencyKey) return randomUUID();
  const h = createHash('sha256').update(`${accountId}:${idempotencyKey}:${fingerprint}`).digest('hex');
  const variant = ((parseInt(h[16]!, 16) & 0x3) | 0x8).toString(16);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

const eventKeyErrors = {
  reused: () => new AppError('idempotency_key_reused', 'this Idempotency-Key was already used with a different event; use a new key for a new event'),
  inFlight: () =>
    new AppError('idempotency_key_in_flight', 'an event with this Idempotency-Key is still being recorded; retry shortly with the same key', {
      headers: { 'Retry-After': '1' },
    }),
};

export async function acceptEvent(deps: AcceptEventDeps, { accountId, input, idempotencyKey }: AcceptEventCommand): Promise<AcceptEventResult> {
  const { producer, rawStore, idempotency } = deps;
  const fingerprint = idempotencyKey ? eventFingerprint(input) : '';
  const event: InboundEvent = {
    eventId: eventIdFor(accountId, idempotencyKey, fingerprint),
    accountId,
    event: input.event,
    email: input.email,
    properties: input.properties ?? {},
    receivedAt: new Date().toISOString(),
  };
  if (idempotencyKey) {
    const claimed = await claimIdempotencyKey({
      store: idempotency,
      accountId,
      key: idempotencyKey,
      fingerprint,
      waitMs: deps.inFlightWaitMs,
      withoutRedis: 'proceed',
      errors: eventKeyErrors,
    });
    if (claimed.state === 'done') return { status: 'duplicate', eventId: event.eventId };
  }
  try {
    await producer.send(TOPICS.eventsInbound, { key: personKey(accountId, event.email), value: JSON.stringify(event) });
  } catch (err) {
    if (idempotencyKey) await idempotency.release(accountId, idempotencyKey, fingerprint);
    // A request that reached a broker which then went silent may still be written when it wakes:
    // the client is told so, and that the same Idempotency-Key makes a retry safe either way.
    const message =
      err instanceof KafkaUnavailableError && !err.handedOver
        ? 'the event could not be recorded right now; nothing was accepted, retry later (with the same Idempotency-Key a retry is never applied twice)'
        : 'Kafka did not confirm the event in time; it may not have been recorded: retry later with the same Idempotency-Key, which is never applied twice';
    throw new AppError('service_unavailable', message, { cause: err, headers: { 'Retry-After': '1' } });
  }
  if (idempotencyKey) await idempotency.complete(accountId, idempotencyKey, fingerprint);
  await rawStore.save(event);
  return { status: 'accepted', eventId: event.eventId };
}
