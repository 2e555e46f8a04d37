// A service's HTTP server, and with METRICS_PORT its metrics server: /healthz, /readyz and
// /metrics on a port of their own (0 picks a free one), the service's port then serving no
// /metrics. The network policies let the monitoring namespace reach that port only.
import type { BaseApp } from './base-app.js';
import { createHttpServer } from './http-server.js';

export interface ServiceServer {
  /** The service's port and URL, and the metrics port and URL when METRICS_PORT was given. */
  start(): Promise<{ port: number; url: string; metricsPort?: number; metricsUrl?: string }>;
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
