// An express app with the parts every service wants first (request id, metrics, health routes)
// and a finish() that appends the 404 and error handlers after the service's own routes.
import express, { type Express } from 'express';
import { Registry, collectDefaultMetrics } from 'prom-client';
import { errorHandler, notFoundHandler } from '@glimpse/errors';
import type { Logger } from '@glimpse/logging';
import { httpMetrics, observabilityRouter, type OptionalCheck, type ReadinessCheck } from './observability.js';
import { requestId } from './request-id.js';

export interface BaseApp {
  app: Express;
  registry: Registry;
  finish(): Express;
}

export interface BaseAppOptions {
  logger: Logger;
  checks: Record<string, ReadinessCheck | OptionalCheck>;
  registry?: Registry;
  /**
   * Which peers may name the client in X-Forwarded-For (express's "trust proxy"). By default the
   * private ranges a load balancer or ingress sits in; a client elsewhere cannot pick its own IP
   * (per-IP limits depend on it).
   */
  trustProxy?: boolean | string | number;
}

export const DEFAULT_TRUST_PROXY = 'loopback, linklocal, uniquelocal';

export function createBaseApp({ logger, checks, registry = new Registry(), trustProxy = DEFAULT_TRUST_PROXY }: BaseAppOptions): BaseApp {
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', trustProxy);
  collectDefaultMetrics({ register: registry });
  app.use(requestId);
  app.use(httpMetrics(registry));
  app.use(observabilityRouter({ registry, checks }));
  return {
    app,
    registry,
    finish() {
      app.use(notFoundHandler);
      app.use(errorHandler(logger));
      return app;
    },
  };
}
