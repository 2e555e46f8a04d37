// The bodies of POST /visitors/enrichment and its bulk form: the enrichment service validates with
// these schemas, and the OpenAPI document is generated from them.
import { z } from 'zod';
import { envelopeSchema } from './envelope.js';

export const MAX_REQUIRED = 50;
export const MAX_BULK_ITEMS = 100;

const text = (name: string, description: string) =>
  z
    .string({ error: `${name} must be a string` })
    .optional()
    .meta({ description });

export const enrichmentInputSchema = z
  .strictObject(
    {
      email: text('email', 'an email address, in any case, spaces trimmed'),
      phone: text('phone', 'a phone number; without a country code it is read in the default region'),
      email_sha256: text('email_sha256', 'the SHA-256 (hex) of the trimmed, lower-cased email'),
      pronet_url: text('pronet_url', 'the professional-network profile URL, in any usual spelling'),
      required: z
        .array(z.string({ error: 'required must list field paths (strings)' }), { error: 'required must be an array of field paths' })
        .max(MAX_REQUIRED, `required names at most ${MAX_REQUIRED} field paths`)
        .optional()
        .meta({ description: 'field paths of the record (e.g. "job.title") it must have, not null or empty: otherwise 404, not billed' }),
    },
    {
      error: (i) =>
        i.code === 'unrecognized_keys'
          ? `unknown field(s): ${i.keys.join(', ')}; send email, phone, email_sha256 and/or pronet_url (and optionally required)`
          : 'body must be a JSON object',
    },
  )
  .meta({
    id: 'EnrichmentInput',
    description: 'At least one of email, phone, email_sha256, pronet_url; the first that matches wins, in that order (email, email_sha256, phone, pronet_url).',
  });

export type EnrichmentInput = z.infer<typeof enrichmentInputSchema>;

/** The bulk envelope around `items` (unknown items in the service, each answered on its own). */
export function enrichmentBulkSchema<T extends z.ZodType>(items: T) {
  return envelopeSchema('items', items, MAX_BULK_ITEMS, { item: 'lookup', whole: 'a bulk enrichment', notArray: 'items must be an array of lookups' });
}
