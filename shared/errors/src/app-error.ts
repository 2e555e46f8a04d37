// The one error type the services throw on purpose; its code and status reach the client as-is.

export const ERROR_STATUS = {
  invalid_request: 400,
  unauthorized: 401,
  payment_required: 402,
  forbidden: 403,
  not_found: 404,
  payload_too_large: 413,
  unsupported_media_type: 415,
  unknown_event_name: 422,
  rate_limited: 429,
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

/** Errors express's body parser raises carry a `type`; map the ones clients cause. */
interface BodyParserError {
  type?: string;
  status?: number;
  limit?: number;
  charset?: string;
}

export function toAppError(err: unknown): AppError {
  if (err instanceof AppError) return err;
  const e = err as BodyParserError | undefined;
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
    default:
      return new AppError('internal_error', 'an unexpected error occurred', { cause: err });
  }
}
