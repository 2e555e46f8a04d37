export { createLogger, REDACT_PATHS } from './logger.js';
export type { Logger, CreateLoggerOptions } from './logger.js';
export { runWithContext, currentContext } from './request-context.js';
export type { RequestContext } from './request-context.js';
export { metricsIn } from './metrics.js';
export type { Metrics } from './metrics.js';
