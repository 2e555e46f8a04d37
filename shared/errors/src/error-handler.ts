// The single express error handler: anything thrown becomes {error, message}; unknown errors are
// logged with their details and answered with a generic internal_error.
import type { ErrorRequestHandler, RequestHandler } from 'express';
import { AppError, toAppError } from './app-error.js';

interface MinimalLogger {
  error(obj: object, msg?: string): void;
}

export function errorHandler(logger: MinimalLogger): ErrorRequestHandler {
  return (err, _req, res, next) => {
    if (res.headersSent) return next(err);
    const appError = toAppError(err);
    if (appError.status >= 500) {
      logger.error({ err: appError.cause ?? appError, code: appError.code }, 'request failed');
    }
    res.status(appError.status).set(appError.headers).json(appError.toBody());
  };
}

export const notFoundHandler: RequestHandler = (req, _res, next) => {
  next(new AppError('not_found', `no route for ${req.method} ${req.path}`));
};
