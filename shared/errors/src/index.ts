export { AppError, toAppError, ERROR_STATUS, RETRY_AFTER_SECONDS } from './app-error.js';
export type { ErrorCode } from './app-error.js';
export { errorHandler, notFoundHandler } from './error-handler.js';
export { dependencyFailure, isDependencyFailure } from './dependency-error.js';
export type { DependencyReason } from './dependency-error.js';
