// An express app with the parts every service wants first (request id, metrics, health routes)
// and a finish() that appends the 404 and error handlers after the service's own routes.
import express, { type Express, type RequestHandler } from 'express';
import { Registry, collectDefaultMetrics } from 'prom-client';
import { AppError, errorHandler, notFoundHandler } from '@glimpse/errors';
import type { Logger } from '@glimpse/logging';
import { addObservabilityRoutes, httpMetrics, type OptionalCheck, type ReadinessCheck } from './observability.js';
import { requestId } from './request-id.js';

export interface BaseApp {
  app: Express;
  registry: Registry;
  finish(): Express;
  /**
   * An app of its own with /healthz, /readyz and /metrics, for a port of their own (METRICS_PORT):
   * once asked for, the service's app no longer serves /metrics (404), so the monitoring namespace
   * is let in to that port only, never to the one that serves /internal.
   */
  metricsApp(): Express;
}

export interface BaseAppOptions {
  logger: Logger;
  checks: Record<string, ReadinessCheck | OptionalCheck>;
  /** More to show in /readyz, ready or not. */
  readinessDetail?: () => Record<string, unknown>;
  registry?: Registry;
  /**
   * Which peers may name the client in X-Forwarded-For (express's "trust proxy"). By default the
   * private ranges a load balancer or ingress sits in; a client elsewhere cannot pick its own IP
   * (per-IP limits depend on it).
   */
  trustProxy?: boolean | string | number;
}

/**
 * Node stops reading a request's body once it asks for a protocol upgrade (the bytes belong to the
 * new protocol), so such a body would never arrive and the request would hang: refused instead.
 * An upgrade without a body (e.g. curl's h2c) is served as an ordinary request.
 */
const noUpgradeWithBody: RequestHandler = (req, res, next) => {
  if (req.headers.upgrade !== undefined && (req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0)) {
    res.set('Connection', 'close');
    throw new AppError('invalid_request', 'a request with a body cannot ask for a protocol upgrade; send it without the Upgrade header');
  }
  next();
};

/**
 * What every request does first, in this order: its id (and the logging context around the rest),
 * the upgrade check, the duration metric. One layer: the router walks its layers for every request.
 */
function firstSteps(registry: Registry): RequestHandler {
  const metrics = httpMetrics(registry);
  return (req, res, next) => {
    requestId(req, res, () => noUpgradeWithBody(req, res, () => metrics(req, res, next)));
  };
}

export const DEFAULT_TRUST_PROXY = 'loopback, linklocal, uniquelocal';

export function createBaseApp({ logger, checks, readinessDetail, registry = new Registry(), trustProxy = DEFAULT_TRUST_PROXY }: BaseAppOptions): BaseApp {
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', trustProxy);
  collectDefaultMetrics({ register: registry });
  app.use(firstSteps(registry));
  let metricsHere = true;
  addObservabilityRoutes(app, { registry, checks, detail: readinessDetail, servesMetrics: () => metricsHere });
  return {
    app,
    registry,
    metricsApp() {
      metricsHere = false;
      const metrics = express();
      metrics.disable('x-powered-by');
      addObservabilityRoutes(metrics, { registry, checks, detail: readinessDetail });
      metrics.use(notFoundHandler);
      metrics.use(errorHandler(logger));
      return metrics;
    },
    finish() {
      app.use(notFoundHandler);
      app.use(errorHandler(logger));
      return app;
    },
  };
}
