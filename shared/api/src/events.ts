// The bodies of POST /events and POST /events/batch (api.md §2.4, §4.3, §8) and their answers: the
// gateway validates with these schemas, and the OpenAPI document is generated from them.
import { z } from 'zod';
import { envelopeSchema } from './envelope.js';
import { emailSchema, EVENT_NAME_PATTERN } from '@glimpse/validation';

export const MAX_BATCH_EVENTS = 500;

const propertyValueInput = z.union([z.string(), z.number().finite(), z.boolean()], {
  error: 'property values must be strings, numbers or booleans (one level deep)',
});

export const eventInputSchema = z
  .strictObject(
    {
      event: z
        .string({ error: (i) => (i.input === undefined ? 'event is required' : 'event must be a string') })
        .regex(EVENT_NAME_PATTERN, 'event must be 1 to 64 characters: letters, digits, _ . : -'),
      email: emailSchema({ base: z.string({ error: (i) => (i.input === undefined ? 'email is required' : 'email must be a string') }) }),
      properties: z
        .record(z.string().min(1).max(128), propertyValueInput, {
          error: (i) => (i.code === 'invalid_key' ? 'property names must be 1 to 128 characters' : 'properties must be an object'),
        })
        .optional(),
    },
    {
      error: (i) =>
        i.code === 'unrecognized_keys' ? `unknown field(s): ${i.keys.join(', ')}; allowed: event, email, properties` : 'body must be a JSON object',
    },
  )
  .meta({ id: 'EventInput', description: 'An event; the email is trimmed and lower-cased.' });

export type EventInput = z.infer<typeof eventInputSchema>;

/**
 * The batch envelope around `items`: the gateway parses it with unknown items (each item is then
 * judged on its own, with its own result) and the document describes it with EventInput items.
 */
export function eventBatchSchema<T extends z.ZodType>(items: T) {
  return envelopeSchema('events', items, MAX_BATCH_EVENTS, { item: 'event', whole: 'a batch', notArray: 'events must be an array' });
}

export const errorBodySchema = z
  .strictObject({ error: z.string().regex(/^[a-z][a-z_]*$/), message: z.string().min(1) })
  .meta({ id: 'ErrorBody', description: 'Every error: a code and a message for people.' });

export const eventAckSchema = z
  .strictObject({ ok: z.boolean() })
  .meta({ id: 'EventAck', description: 'The acknowledgement; the event id is in the X-Event-Id header.' });

export const batchItemResultSchema = z
  .union([z.strictObject({ ok: z.literal(true), eventId: z.uuid() }), errorBodySchema])
  .meta({ id: 'BatchItemResult', description: 'Accepted with its event id, or why not (the rules of POST /events).' });

export const batchResultSchema = z
  .strictObject({ accepted: z.int().min(0), rejected: z.int().min(0), results: z.array(batchItemResultSchema) })
  .meta({ id: 'BatchResult', description: 'One result per event, in the order sent.' });
