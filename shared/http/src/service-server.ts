// A service's HTTP server, and with METRICS_PORT its metrics server: /healthz, /readyz and
// /metrics on a port of their own (0 picks a free one), the service's port then serving no
// /metrics. The network policies let the monitoring namespace reach that port only.
import { createLogger, type Logger } from '@glimpse/logging';
import type { BaseApp } from './base-app.js';
import { createHttpServer } from './http-server.js';

/** Where a started service listens: its port and URL, and the metrics port and URL when METRICS_PORT was given. */
export interface ServiceAddress {
  url: string;
  port: number;
  /** With METRICS_PORT: where /healthz, /readyz and /metrics are (the service's port then serves no /metrics). */
  metricsPort?: number;
  metricsUrl?: string;
}

/** What a service's start function hands back: where it listens, and how to stop it (leave its groups, drain, close). */
export interface RunningService extends ServiceAddress {
  stop(): Promise<void>;
}

export interface ServiceServer {
  start(): Promise<ServiceAddress>;
  stop(): Promise<void>;
}

export function createServiceServer({ base, port, host, metricsPort }: { base: BaseApp; port: number; host?: string; metricsPort?: number }): ServiceServer {
  const main = createHttpServer({ app: base.finish(), port, host });
  const metrics = metricsPort === undefined ? undefined : createHttpServer({ app: base.metricsApp(), port: metricsPort, host });
  return {
    async start() {
      const address = await main.start();
      if (!metrics) return address;
      try {
        const m = await metrics.start();
        return { ...address, metricsPort: m.port, metricsUrl: m.url };
      } catch (err) {
        await main.stop();
        throw err;
      }
    },
    async stop() {
      await Promise.all([main.stop(), metrics?.stop()]);
    },
  };
}

/** One step of a stop: awaited before the next, so the order is the one listed. */
export type StopStep = () => unknown;

export interface ServeServiceOptions {
  /** The service's name, in the "running" and "stopped" log lines. */
  name: string;
  base: BaseApp;
  port: number;
  host?: string;
  metricsPort?: number;
  logger: Logger;
  /** Logged with the ports when the service is running (group ids, not personal data). */
  details?: Record<string, unknown>;
  /** Stops taking work before the HTTP server closes: timers, then consumers leaving their groups. */
  drain: StopStep[];
  /** Closes what the drained work used, after the HTTP server: producers, health checks, the database. */
  close: StopStep[];
}

/**
 * Starts a consuming service's HTTP server (and metrics server) and hands back its RunningService:
 * stop() drains (in order), closes the server, then closes the rest (in order). One place for the
 * order the services share, so that a consumer never writes to a producer or pool already closed.
 */
export async function serveService({ name, base, port, host, metricsPort, logger, details, drain, close }: ServeServiceOptions): Promise<RunningService> {
  const server = createServiceServer({ base, port, host, metricsPort });
  const address = await server.start();
  logger.info({ port: address.port, metricsPort: address.metricsPort, ...details }, `${name} service running`);
  return {
    ...address,
    async stop() {
      for (const step of drain) await step();
      await server.stop();
      for (const step of close) await step();
      logger.info(`${name} service stopped`);
    },
  };
}

/** A service's start: from its configuration and logger to the running service. */
export type StartService<C> = (config: C, logger: Logger) => Promise<RunningService>;

/**
 * A service's exported start function: given nothing, it loads the configuration from the
 * environment and logs as the service at the configuration's LOG_LEVEL; tests pass their own.
 */
export function serviceStart<C extends { LOG_LEVEL: string }>(
  service: string,
  loadConfig: () => C,
  start: StartService<C>,
): (config?: C, logger?: Logger) => Promise<RunningService> {
  return (config = loadConfig(), logger = createLogger({ service, level: config.LOG_LEVEL })) => start(config, logger);
}
