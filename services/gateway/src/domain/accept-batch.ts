// A batch of events (POST /events/batch): each item is judged by the rules of POST /events and
// answered in order: accepted with its event id, or its own {error, message}. Every item is sent
// at once, so the batching producer writes them to Kafka in one acknowledged batch (acks=all)
// instead of one round trip each; nothing is answered before Kafka has acknowledged its items.
//
// With an Idempotency-Key on the batch, item i is sent under the key `<key>/<i>` (a "/" no single
// event's key may hold, so the two never meet): a retry of the same batch accepts nothing twice.
import { z } from 'zod';
import { eventBatchSchema, MAX_BATCH_EVENTS } from '@glimpse/api';
import { AppError } from '@glimpse/errors';
import { acceptEvent, type AcceptEventDeps } from './accept-event.js';
import { parseEventInput } from './event-input.js';

export type BatchItemResult = { ok: true; eventId: string } | { error: string; message: string };

export interface BatchResult {
  accepted: number;
  rejected: number;
  results: BatchItemResult[];
}

const batchInputSchema = eventBatchSchema(z.unknown());

/** The items of a batch body, unchecked; the batch itself is refused (400) when malformed. */
export function parseBatchInput(body: unknown): unknown[] {
  // {"events": [1 to 500 items]} and nothing else, as the schema would take it; the schema words the rest.
  if (typeof body === 'object' && body !== null && !Array.isArray(body)) {
    const keys = Object.keys(body);
    const { events } = body as { events?: unknown };
    if (keys.length === 1 && keys[0] === 'events' && Array.isArray(events) && events.length >= 1 && events.length <= MAX_BATCH_EVENTS) return events;
  }
  const result = batchInputSchema.safeParse(body);
  if (result.success) return result.data.events;
  throw new AppError('invalid_request', result.error.issues[0]!.message);
}

export interface AcceptBatchCommand {
  accountId: string;
  items: unknown[];
  idempotencyKey?: string;
  /** An item whose JSON is longer than this is refused as POST /events would refuse its body. */
  itemLimitBytes: number;
}

export async function acceptBatch(deps: AcceptEventDeps, { accountId, items, idempotencyKey, itemLimitBytes }: AcceptBatchCommand): Promise<BatchResult> {
  const results = await Promise.all(
    items.map(async (item, i): Promise<BatchItemResult> => {
      try {
        if (Buffer.byteLength(JSON.stringify(item) ?? '') > itemLimitBytes) {
          throw new AppError('payload_too_large', `an event must be at most ${itemLimitBytes} bytes of JSON`);
        }
        const input = parseEventInput(item);
        const { eventId } = await acceptEvent(deps, { accountId, input, idempotencyKey: idempotencyKey === undefined ? undefined : `${idempotencyKey}/${i}` });
        return { ok: true, eventId };
      } catch (err) {
        if (err instanceof AppError) return err.toBody();
        throw err;
      }
    }),
  );
  const accepted = results.filter((r) => 'ok' in r).length;
  // Nothing recorded because Kafka could not take it: the whole batch is the client's to retry.
  if (accepted === 0 && results.some((r) => 'error' in r && r.error === 'service_unavailable')) {
    throw new AppError(
      'service_unavailable',
      'the events could not be recorded right now; nothing was accepted, retry later (with the same Idempotency-Key a retry is never applied twice)',
      {
        headers: { 'Retry-After': '1' },
      },
    );
  }
  return { accepted, rejected: results.length - accepted, results };
}
