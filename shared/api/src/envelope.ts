// The envelope of a call that carries many items at once (a bulk enrichment, a batch of events): a
// strict object around one array, required, of at least one item and at most `max`; and the envelope
// of a webhook delivery's body (Standard Webhooks' {type, timestamp, data}).
import { z } from 'zod';

export interface EnvelopeWords {
  /** What one item is called in the messages ("lookup", "event"). */
  item: string;
  /** What the whole call is called ("a bulk enrichment", "a batch"). */
  whole: string;
  /** The message when the field is not an array. */
  notArray: string;
}

/** `{ [key]: items[] }`, strict, with messages that name the field, its items and the call. */
export function envelopeSchema<K extends string, T extends z.ZodType>(key: K, items: T, max: number, { item, whole, notArray }: EnvelopeWords) {
  const field = z
    .array(items, { error: (i) => (i.input === undefined ? `${key} is required` : notArray) })
    .min(1, `${key} must hold at least one ${item}`)
    .max(max, `${whole} holds at most ${max} ${item}s`);
  return z.strictObject({ [key]: field } as Record<K, typeof field>, {
    error: (i) => (i.code === 'unrecognized_keys' ? `unknown field(s): ${i.keys.join(', ')}; send {"${key}": [...]}` : 'body must be a JSON object'),
  });
}

/** A webhook delivery's body: its type, when what it tells of happened (`when` describes it), and its data, all strict. */
export function deliverySchema<T extends z.ZodType, D extends z.ZodRawShape>(type: T, when: string, data: D) {
  return z.strictObject({ type, timestamp: z.iso.datetime().meta({ description: when }), data: z.strictObject(data) });
}
