// Starts an express app on a port (0 for a free one) and stops it by draining: no new
// connections, idle keep-alive sockets closed, in-flight requests allowed to finish.
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Express } from 'express';

export interface HttpServer {
  start(): Promise<{ port: number; url: string }>;
  stop(): Promise<void>;
}

export function createHttpServer({ app, port, host = '0.0.0.0' }: { app: Express; port: number; host?: string }): HttpServer {
  let server: Server | undefined;
  return {
    start() {
      return new Promise((resolve, reject) => {
        const s = app.listen(port, host, (err?: Error) => {
          if (err) return reject(err);
          const { port: actual } = s.address() as AddressInfo;
          resolve({ port: actual, url: `http://127.0.0.1:${actual}` });
        });
        s.keepAliveTimeout = 65_000;
        server = s;
      });
    },
    stop() {
      const s = server;
      if (!s) return Promise.resolve();
      server = undefined;
      return new Promise((resolve) => {
        s.close(() => resolve());
        s.closeIdleConnections();
      });
    },
  };
}
