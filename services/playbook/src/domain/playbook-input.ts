// The shape of a playbook body from the management API: {name, triggers?, exits?} on create, any
// of them on update (lists replace). Names are checked by the use cases; this checks the shape.
import { z } from 'zod';
import { AppError } from '@glimpse/errors';

export interface PlaybookChanges {
  name?: string;
  triggers?: string[];
  exits?: string[];
}

const eventNames = (field: string) =>
  z.array(z.string({ error: `${field} must list event names as strings` }), { error: `${field} must be an array of event names` });

const shape = {
  name: z.string({ error: (i) => (i.input === undefined ? 'name is required' : 'name must be a string') }),
  triggers: eventNames('triggers').optional(),
  exits: eventNames('exits').optional(),
};

const objectError = (i: { code: string; keys?: string[] }) =>
  i.code === 'unrecognized_keys' ? `unknown field(s): ${(i.keys ?? []).join(', ')}; a playbook has name, triggers and exits` : 'body must be a JSON object';

const createSchema = z.strictObject(shape, { error: objectError });
const updateSchema = z.strictObject({ ...shape, name: shape.name.optional() }, { error: objectError });

function parse<T>(schema: z.ZodType<T>, body: unknown): T {
  const result = schema.safeParse(body);
  if (!result.success) throw new AppError('invalid_request', result.error.issues[0]!.message);
  return result.data;
}

export function parseNewPlaybook(body: unknown): PlaybookChanges & { name: string } {
  return parse(createSchema, body);
}

export function parsePlaybookChanges(body: unknown): PlaybookChanges {
  return parse(updateSchema, body);
}
