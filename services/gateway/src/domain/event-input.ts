// The rules for a POST /events body (spec §4.3, §8): what is accepted and the message for what is not.
import { z } from 'zod';
import { EVENT_NAME_PATTERN } from '@glimpse/messaging';
import { AppError } from '@glimpse/errors';
import { emailSchema } from '@glimpse/validation';

const propertyValueInput = z.union([z.string(), z.number().finite(), z.boolean()], {
  error: 'property values must be strings, numbers or booleans (one level deep)',
});

const eventInputSchema = z.strictObject(
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
  { error: (i) => (i.code === 'unrecognized_keys' ? `unknown field(s): ${i.keys.join(', ')}; allowed: event, email, properties` : 'body must be a JSON object') },
);

export type EventInput = z.infer<typeof eventInputSchema>;

export function parseEventInput(body: unknown): EventInput {
  const result = eventInputSchema.safeParse(body);
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  const where = issue.path.length > 1 ? ` (${issue.path.join('.')})` : '';
  throw new AppError('invalid_request', `${issue.message}${where}`);
}
