// Every failure of the client is a GlimpseError: the API's {error, message}, its HTTP status, and
// when to retry (Retry-After), or a network failure (status 0).
import type { components } from './api-types.js';

export type ErrorBody = components['schemas']['ErrorBody'];

/** The error codes the API answers with (api.md §2.6 and the extensions of docs/openapi.json). */
export type ErrorCode =
  | 'invalid_request'
  | 'unauthorized'
  | 'payment_required'
  | 'forbidden'
  /** The account lacks the add-on of the endpoint (the workflows add-on: events, event tokens, playbooks, page rules). */
  | 'addon_required'
  | 'not_found'
  | 'idempotency_key_in_flight'
  | 'payload_too_large'
  | 'unsupported_media_type'
  | 'idempotency_key_reused'
  | 'rate_limited'
  | 'internal_error'
  | 'service_unavailable'
  | 'network_error';

export class GlimpseError extends Error {
  constructor(
    /** The API's error code (`network_error` when no answer came). */
    readonly code: ErrorCode,
    message: string,
    /** The HTTP status; 0 when no answer came. */
    readonly status: number,
    /** Seconds the API asked to wait before a retry (Retry-After), when it said. */
    readonly retryAfterSeconds?: number,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'GlimpseError';
  }

  /** A retry (with the same Idempotency-Key) may succeed: rate limits, a key in flight, outages. */
  get retryable(): boolean {
    return this.status === 0 || this.status === 409 || this.status === 429 || this.status === 503;
  }
}

export class NotFoundError extends GlimpseError {}
export class PaymentRequiredError extends GlimpseError {}
export class RateLimitedError extends GlimpseError {}

export function errorFrom(status: number, body: unknown, retryAfter: string | null): GlimpseError {
  const seconds = retryAfter !== null && /^[0-9]+$/.test(retryAfter) ? Number(retryAfter) : undefined;
  const known = body !== null && typeof body === 'object' && typeof (body as ErrorBody).error === 'string';
  const code = (known ? (body as ErrorBody).error : 'internal_error') as ErrorCode;
  const message = known ? (body as ErrorBody).message : `HTTP ${status}`;
  const Kind = status === 404 ? NotFoundError : status === 402 ? PaymentRequiredError : status === 429 ? RateLimitedError : GlimpseError;
  return new Kind(code, message, status, seconds);
}
