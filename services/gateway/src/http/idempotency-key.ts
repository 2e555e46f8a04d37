// The Idempotency-Key header of the events and the enrichment lookups: one rule, so a key a client
// may send to one is a key it may send to the other.
import type { IncomingHttpHeaders } from 'node:http';
import { AppError } from '@glimpse/errors';

const IDEMPOTENCY_KEY = /^[A-Za-z0-9._:-]{1,128}$/;

/** The request's Idempotency-Key, or undefined without one; a malformed key is a 400 invalid_request. */
export function idempotencyKeyOf(req: { headers: IncomingHttpHeaders }): string | undefined {
  const key = req.headers['idempotency-key'];
  if (key === undefined) return undefined;
  // Node joins a repeated header with ", ", which the pattern refuses; an array never comes for this name.
  if (typeof key !== 'string' || !IDEMPOTENCY_KEY.test(key))
    throw new AppError('invalid_request', 'Idempotency-Key must be 1 to 128 letters, digits or . _ : -');
  return key;
}
