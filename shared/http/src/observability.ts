// /healthz (process alive), /readyz (dependencies reachable) and /metrics (Prometheus), plus a
// request duration histogram labelled by route, method and status.
import express, { type IRouter, type RequestHandler, type Router } from 'express';
import { Histogram, type Registry } from 'prom-client';
import { dependencyFailure } from '@glimpse/errors';

export type ReadinessCheck = () => Promise<void>;

/**
 * A check the service can work without (e.g. the gateway's Postgres: events and cached
 * credentials go on): /readyz reports it as "degraded: <reason>" but stays ready.
 */
export interface OptionalCheck {
  check: ReadinessCheck;
  optional: true;
}

export interface ObservabilityOptions {
  registry: Registry;
  /** Named checks; /readyz answers 503 naming each required one that fails. */
  checks: Record<string, ReadinessCheck | OptionalCheck>;
  /** A check that takes longer than this counts as failed. */
  checkTimeoutMs?: number;
  /** More to show in /readyz (e.g. the consumer's lag per partition), ready or not. */
  detail?: () => Record<string, unknown>;
  /** Whether /metrics is served here (false: it falls through, to a 404; the metrics are on their own port). */
  servesMetrics?: () => boolean;
}

function withTimeout(check: ReadinessCheck, ms: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms`)), ms);
    check()
      .then(resolve, reject)
      .finally(() => clearTimeout(timer));
  });
}

/** Fixed words for a failed check, never a driver's text (Prisma's quotes code, hosts and paths). */
const SHORT_REASON = /^[A-Za-z0-9 ._:,()'-]{1,80}$/;
export function readinessReason(err: unknown): string {
  const dependency = dependencyFailure(err);
  if (dependency) return dependency;
  const message = (err as Error | undefined)?.message ?? '';
  return SHORT_REASON.test(message) && !/\d\.\d+\.\d+\.\d/.test(message) ? message : 'unavailable';
}

export function observabilityRouter(options: ObservabilityOptions): Router {
  const router = express.Router();
  addObservabilityRoutes(router, options);
  return router;
}

/**
 * The three routes on `app` itself (createBaseApp's way): three path tests for every other
 * request, where a router of their own is entered and left by each.
 */
export function addObservabilityRoutes(
  router: IRouter,
  { registry, checks, checkTimeoutMs = 2000, detail, servesMetrics = () => true }: ObservabilityOptions,
): void {
  router.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  router.get('/readyz', async (_req, res) => {
    const results = await Promise.all(
      Object.entries(checks).map(async ([name, entry]) => {
        const optional = typeof entry !== 'function';
        try {
          await withTimeout(optional ? entry.check : entry, checkTimeoutMs);
          return [name, 'ok', true] as const;
        } catch (err) {
          return [name, `${optional ? 'degraded' : 'failed'}: ${readinessReason(err)}`, optional] as const;
        }
      }),
    );
    const ready = results.every(([, , fine]) => fine);
    res.status(ready ? 200 : 503).json({
      status: ready ? 'ready' : 'not_ready',
      checks: Object.fromEntries(results.map(([name, r]) => [name, r])),
      ...(detail ? { detail: detail() } : {}),
    });
  });
  router.get('/metrics', async (_req, res, next) => {
    if (!servesMetrics()) return next();
    res.set('Content-Type', registry.contentType).send(await registry.metrics());
  });
}

export function httpMetrics(registry: Registry): RequestHandler {
  const duration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP request duration by route, method and status',
    labelNames: ['route', 'method', 'status'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [registry],
  });
  return (req, res, next) => {
    const end = duration.startTimer();
    res.on('finish', () => {
      // The matched route pattern, never the raw path: ids in paths would explode cardinality.
      const route = (req.route?.path as string | undefined) ?? 'unmatched';
      end({ route: `${req.baseUrl}${route}`, method: req.method, status: String(res.statusCode) });
    });
    next();
  };
}
