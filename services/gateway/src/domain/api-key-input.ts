// The body of POST /account/api-keys: {scopes}, a non-empty subset of the known scopes (the schema
// is @glimpse/api's, which the OpenAPI document is generated from).
import { apiKeyInputSchema } from '@glimpse/api';
import type { Scope } from '@glimpse/auth';
import { AppError } from '@glimpse/errors';

const schema = apiKeyInputSchema;

export function parseNewApiKey(body: unknown): { scopes: Scope[] } {
  const parsed = schema.safeParse(body);
  if (!parsed.success) throw new AppError('invalid_request', parsed.error.issues[0]!.message);
  return { scopes: [...new Set(parsed.data.scopes)] };
}
