export { createBaseApp } from './base-app.js';
export type { BaseApp } from './base-app.js';
export { createHttpServer } from './http-server.js';
export type { HttpServer } from './http-server.js';
export { observabilityRouter, httpMetrics } from './observability.js';
export type { ReadinessCheck } from './observability.js';
export { requestId } from './request-id.js';
export { runService } from './run-service.js';
export type { Stoppable } from './run-service.js';
