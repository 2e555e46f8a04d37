// Calls one internal service for an authenticated account over a keep-alive pool, proving the
// caller with the internal token and passing the answer's status and body through. An
// unreachable service is 503, never a hang.
import type { Response } from 'express';
import { Pool } from 'undici';
import { AppError, RETRY_AFTER_SECONDS } from '@glimpse/errors';
import { INTERNAL_HEADERS } from '@glimpse/http';
import { upstreamResponse, type UpstreamResponse } from '../domain/upstream-response.js';

export { upstreamResponse, type UpstreamResponse };

/** Answer headers of an internal service the client is given too. */
export const RELAYED_HEADERS = ['credits-remaining'] as const;

/**
 * Sends the service's answer on as it came: no parse and re-serialise on the hot path. A 503 (the
 * service's own dependency is down) keeps telling the client when to retry.
 */
export function relay(res: Response, upstream: UpstreamResponse): void {
  res.set(upstream.headers);
  if (upstream.status === 503) res.set('Retry-After', RETRY_AFTER_SECONDS);
  if (upstream.raw.length === 0) res.status(upstream.status).end();
  else res.status(upstream.status).type('application/json').send(upstream.raw);
}

export interface InternalService {
  call(method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE', path: string, accountId: string, body?: unknown): Promise<UpstreamResponse>;
  close(): Promise<void>;
}

/** Where a client reaches its service: the base URL, the token it proves itself with, how long it waits, and its pool's size. */
export interface ServiceEndpoint {
  baseUrl: string;
  internalToken: string;
  timeoutMs: number;
  connections?: number;
}

export interface InternalServiceOptions extends ServiceEndpoint {
  /** What the client is told when the service cannot be reached. */
  unavailableMessage: string;
}

export function createInternalService({ baseUrl, internalToken, timeoutMs, connections = 64, unavailableMessage }: InternalServiceOptions): InternalService {
  const pool = new Pool(baseUrl, { connections, pipelining: 1, headersTimeout: timeoutMs, bodyTimeout: timeoutMs });
  return {
    async call(method, path, accountId, body) {
      try {
        const res = await pool.request({
          method,
          path,
          headers: {
            [INTERNAL_HEADERS.token]: internalToken,
            [INTERNAL_HEADERS.account]: accountId,
            ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          },
          body: body === undefined ? undefined : JSON.stringify(body),
        });
        const headers: Record<string, string> = {};
        for (const name of RELAYED_HEADERS) {
          const value = res.headers[name];
          if (typeof value === 'string') headers[name] = value;
        }
        return upstreamResponse(res.statusCode, await res.body.text(), headers);
      } catch (err) {
        throw new AppError('service_unavailable', unavailableMessage, { cause: err, headers: { 'Retry-After': '1' } });
      }
    },
    close: () => pool.close(),
  };
}
