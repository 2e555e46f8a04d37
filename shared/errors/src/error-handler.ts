// The single express error handler: anything thrown becomes {error, message}; unknown errors are
// logged with their details and answered with a generic internal_error. Every 503 carries
// Retry-After.
import type { ErrorRequestHandler, RequestHandler } from 'express';
import { AppError, RETRY_AFTER_SECONDS, toAppError } from './app-error.js';

interface MinimalLogger {
  error(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
}

export function errorHandler(logger: MinimalLogger): ErrorRequestHandler {
  return (err, _req, res, next) => {
    if (res.headersSent) return next(err);
    const appError = toAppError(err);
    if (appError.status === 503) {
      // A dependency outage is expected operations, not a bug: no stack, only what failed.
      logger.warn({ code: appError.code, cause: (appError.cause as Error | undefined)?.message?.slice(0, 200) }, 'request refused: dependency unavailable');
    } else if (appError.status >= 500) {
      logger.error({ err: appError.cause ?? appError, code: appError.code }, 'request failed');
    }
    const headers =
      appError.status === 503 && !('Retry-After' in appError.headers) ? { ...appError.headers, 'Retry-After': RETRY_AFTER_SECONDS } : appError.headers;
    res.status(appError.status).set(headers).json(appError.toBody());
  };
}

export const notFoundHandler: RequestHandler = (req, _res, next) => {
  next(new AppError('not_found', `no route for ${req.method} ${safePath(req.path)}`));
};

/** The path as the client sent it, cut short and without control characters, for a message. */
function safePath(path: string): string {
  // eslint-disable-next-line no-control-regex
  const clean = path.replace(/[\u0000-\u001f\u007f]/g, '?');
  return clean.length > 200 ? `${clean.slice(0, 200)}…` : clean;
}
