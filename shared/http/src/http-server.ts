// Starts an express app on a port (0 for a free one) and stops it by draining: no new
// connections, idle keep-alive sockets closed, in-flight requests allowed to finish. Requests
// Node itself refuses (malformed HTTP, CONNECT, oversized headers, a client too slow to send)
// get an {error, message} answer before the connection closes, never a silent close.
//
// Node builds each request and response with the app's own prototypes (express's app.request and
// app.response). Express otherwise gives them those prototypes itself, with Object.setPrototypeOf
// on both for every request, and V8 pays for that dearly: each object changes shape, and the
// caches of every function that touches them (Node's HTTP code, express, ours) stop hitting.
// Measured on a bare endpoint: about 0.3 ms of CPU per request with the change of prototype,
// 0.1 ms without; express's own call then finds nothing to change.
import { createServer, IncomingMessage, ServerResponse, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { Express } from 'express';

export interface HttpServer {
  start(): Promise<{ port: number; url: string }>;
  stop(): Promise<void>;
}

export interface HttpServerOptions {
  app: Express;
  port: number;
  host?: string;
  /** A client must have sent its headers within this (slow-loris protection). */
  headersTimeoutMs?: number;
  /** …and its whole request within this. */
  requestTimeoutMs?: number;
}

function rawAnswer(status: number, reason: string, error: string, message: string): string {
  const body = JSON.stringify({ error, message });
  return `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`;
}

/** What to answer a request the HTTP parser refused, by Node's error code. */
function answerFor(code: string | undefined): string {
  switch (code) {
    case 'HPE_HEADER_OVERFLOW':
      return rawAnswer(431, 'Request Header Fields Too Large', 'invalid_request', 'request headers are too large');
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return rawAnswer(408, 'Request Timeout', 'invalid_request', 'the request was not received in time');
    case 'HPE_INVALID_METHOD':
      return rawAnswer(400, 'Bad Request', 'invalid_request', 'unknown HTTP method');
    default:
      return rawAnswer(400, 'Bad Request', 'invalid_request', 'malformed HTTP request');
  }
}

function refuseSocket(socket: Duplex, answer: string): void {
  if (socket.writable && !(socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage?.headersSent) {
    socket.end(answer);
    // A client that never reads must not hold the socket open.
    setTimeout(() => socket.destroy(), 1000).unref();
  } else {
    socket.destroy();
  }
}

/**
 * Request and response constructors for Node whose objects have `app`'s prototypes from the start.
 * Node's own constructors run on them as functions (they are functions, not classes; building
 * through Reflect.construct with another new.target measured slower than express's own way).
 */
function appPrototypes(app: Express): { IncomingMessage: typeof IncomingMessage; ServerResponse: typeof ServerResponse } {
  const initRequest = IncomingMessage as unknown as (this: object, socket: Socket) => void;
  const initResponse = ServerResponse as unknown as (this: object, req: IncomingMessage, options?: object) => void;
  function AppRequest(this: IncomingMessage, socket: Socket) {
    initRequest.call(this, socket);
  }
  AppRequest.prototype = app.request;
  function AppResponse(this: ServerResponse, req: IncomingMessage, options?: object) {
    initResponse.call(this, req, options);
  }
  AppResponse.prototype = app.response;
  return { IncomingMessage: AppRequest as unknown as typeof IncomingMessage, ServerResponse: AppResponse as unknown as typeof ServerResponse };
}

export function createHttpServer({ app, port, host = '0.0.0.0', headersTimeoutMs = 20_000, requestTimeoutMs = 30_000 }: HttpServerOptions): HttpServer {
  let server: Server | undefined;
  return {
    start() {
      return new Promise((resolve, reject) => {
        const s = createServer(appPrototypes(app), app);
        s.once('error', reject);
        s.listen(port, host, () => {
          s.off('error', reject);
          const { port: actual } = s.address() as AddressInfo;
          resolve({ port: actual, url: `http://127.0.0.1:${actual}` });
        });
        s.keepAliveTimeout = 65_000;
        s.headersTimeout = headersTimeoutMs;
        s.requestTimeout = requestTimeoutMs;
        s.on('clientError', (err: NodeJS.ErrnoException, socket: Duplex) => {
          if (err.code === 'ECONNRESET' || err.code === 'EPIPE') socket.destroy();
          else refuseSocket(socket, answerFor(err.code));
        });
        // Without these listeners Node closes the connection without a word.
        s.on('connect', (_req: IncomingMessage, socket: Duplex) => {
          refuseSocket(socket, rawAnswer(405, 'Method Not Allowed', 'method_not_allowed', 'CONNECT is not supported'));
        });
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
