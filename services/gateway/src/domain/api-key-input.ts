// The body of POST /account/api-keys: {scopes}, a non-empty subset of the known scopes.
import { z } from 'zod';
import { SCOPES, type Scope } from '@glimpse/auth';
import { AppError } from '@glimpse/errors';

const schema = z.strictObject(
  {
    scopes: z
      .array(z.enum(SCOPES, { error: `each scope must be one of ${SCOPES.join(', ')}` }), {
        error: (i) => (i.input === undefined ? 'scopes is required' : 'scopes must be an array'),
      })
      .min(1, { error: 'give the key at least one scope' }),
  },
  { error: (i) => (i.code === 'unrecognized_keys' ? `unknown field(s): ${i.keys.join(', ')}; send {scopes: [...]}` : 'body must be a JSON object') },
);

export function parseNewApiKey(body: unknown): { scopes: Scope[] } {
  const parsed = schema.safeParse(body);
  if (!parsed.success) throw new AppError('invalid_request', parsed.error.issues[0]!.message);
  return { scopes: [...new Set(parsed.data.scopes)] };
}
