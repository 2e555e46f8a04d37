// The one error type the services throw on purpose; its code and status reach the client as-is.
import { isDependencyFailure } from './dependency-error.js';

export const ERROR_STATUS = {
  invalid_request: 400,
  unauthorized: 401,
  payment_required: 402,
  forbidden: 403,
  /** The account lacks a paid add-on the endpoint belongs to (the message names it). */
  addon_required: 403,
  not_found: 404,
  method_not_allowed: 405,
  idempotency_key_in_flight: 409,
  limit_reached: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  unknown_event_name: 422,
  idempotency_key_reused: 422,
  rate_limited: 429,
  /** The account holds as many Idempotency-Keys as its budget allows. */
  idempotency_budget_exceeded: 429,
  internal_error: 500,
  service_unavailable: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

export class AppError extends Error {
  readonly status: number;
  readonly headers: Record<string, string>;

  constructor(
    readonly code: ErrorCode,
    message: string,
    options: { status?: number; cause?: unknown; headers?: Record<string, string> } = {},
  ) {
    super(message, { cause: options.cause });
    this.name = 'AppError';
    this.status = options.status ?? ERROR_STATUS[code];
    this.headers = options.headers ?? {};
  }

  toBody(): { error: string; message: string } {
    return { error: this.code, message: this.message };
  }
}

/** Errors express's body parser and router raise carry a `type` or an http-errors `status`. */
interface HttpLikeError {
  type?: string;
  status?: unknown;
  statusCode?: unknown;
  limit?: number;
  charset?: string;
}

/** Retry-After on every 503: a client is told when to come back, not only that it failed. */
export const RETRY_AFTER_SECONDS = '1';

function clientErrorByStatus(status: number, err: unknown): AppError {
  switch (status) {
    case 404:
      return new AppError('not_found', 'not found', { cause: err });
    case 413:
      return new AppError('payload_too_large', 'request is too large', { cause: err });
    case 415:
      return new AppError('unsupported_media_type', 'request body encoding or media type is not supported', { cause: err });
    default:
      return new AppError('invalid_request', 'the request is malformed', { status: status === 400 ? undefined : 400, cause: err });
  }
}

/**
 * Anything thrown, as the error the client gets: our own AppErrors as they are; a client's
 * malformed request (body parser, undecodable path) as its 4xx; a failing dependency as 503 with
 * Retry-After; anything else as a generic 500 whose details go to the log only.
 */
export function toAppError(err: unknown): AppError {
  if (err instanceof AppError) return err;
  const e = err as HttpLikeError | undefined;
  switch (e?.type) {
    case 'entity.too.large':
      return new AppError('payload_too_large', e.limit ? `request body exceeds the ${e.limit} byte limit` : 'request body is too large', { cause: err });
    case 'entity.parse.failed':
      return new AppError('invalid_request', 'request body is not valid JSON', { cause: err });
    case 'charset.unsupported':
    case 'encoding.unsupported':
      return new AppError('unsupported_media_type', 'request body encoding or charset is not supported', { cause: err });
    case 'request.aborted':
      return new AppError('invalid_request', 'request was aborted by the client', { cause: err });
    case 'request.size.invalid':
      return new AppError('invalid_request', 'request body length does not match Content-Length', { cause: err });
    case 'parameters.too.many':
      return new AppError('payload_too_large', 'request has too many parameters', { cause: err });
  }
  if (err instanceof URIError) return new AppError('invalid_request', 'the path or query has an invalid percent-encoding', { cause: err });
  const status = Number(e?.status ?? e?.statusCode);
  // http-errors from express's router (e.g. a path parameter that is not valid percent-encoding) and
  // body parser: a client's mistake, whatever its message says.
  if (Number.isInteger(status) && status >= 400 && status < 500) {
    if (/decode param/i.test(String((err as Error).message)))
      return new AppError('invalid_request', 'the path has an invalid percent-encoding', { cause: err });
    return clientErrorByStatus(status, err);
  }
  if (isDependencyFailure(err)) {
    return new AppError('service_unavailable', 'a service this request needs is unavailable; retry later', {
      cause: err,
      headers: { 'Retry-After': RETRY_AFTER_SECONDS },
    });
  }
  return new AppError('internal_error', 'an unexpected error occurred', { cause: err });
}
