export { AppError, toAppError, ERROR_STATUS } from './app-error.js';
export type { ErrorCode } from './app-error.js';
export { errorHandler, notFoundHandler } from './error-handler.js';
