// /healthz (process alive), /readyz (dependencies reachable) and /metrics (Prometheus), plus a
// request duration histogram labelled by route, method and status.
import express, { type RequestHandler, type Router } from 'express';
import { Histogram, type Registry } from 'prom-client';

export type ReadinessCheck = () => Promise<void>;

export interface ObservabilityOptions {
  registry: Registry;
  /** Named checks; /readyz answers 503 naming each one that fails. */
  checks: Record<string, ReadinessCheck>;
  /** A check that takes longer than this counts as failed. */
  checkTimeoutMs?: number;
}

function withTimeout(check: ReadinessCheck, ms: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms`)), ms);
    check().then(resolve, reject).finally(() => clearTimeout(timer));
  });
}

export function observabilityRouter({ registry, checks, checkTimeoutMs = 2000 }: ObservabilityOptions): Router {
  const router = express.Router();
  router.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  router.get('/readyz', async (_req, res) => {
    const results = await Promise.all(
      Object.entries(checks).map(async ([name, check]) => {
        try {
          await withTimeout(check, checkTimeoutMs);
          return [name, 'ok'] as const;
        } catch (err) {
          return [name, `failed: ${(err as Error).message}`] as const;
        }
      }),
    );
    const ready = results.every(([, r]) => r === 'ok');
    res.status(ready ? 200 : 503).json({ status: ready ? 'ready' : 'not_ready', checks: Object.fromEntries(results) });
  });
  router.get('/metrics', async (_req, res) => {
    res.set('Content-Type', registry.contentType).send(await registry.metrics());
  });
  return router;
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
