// Calls the internal enrichment service for an authenticated account over a keep-alive pool,
// passing its status and body through. An unreachable service is 503, never a hang.
import { Pool } from 'undici';
import { AppError } from '@glimpse/errors';

export interface UpstreamResponse {
  status: number;
  body: unknown;
}

export interface EnrichmentClient {
  visitorDetails(accountId: string, visitorId: string): Promise<UpstreamResponse>;
  enrich(accountId: string, body: unknown): Promise<UpstreamResponse>;
  close(): Promise<void>;
}

export function createEnrichmentClient({ baseUrl, internalToken, timeoutMs, connections = 64 }: { baseUrl: string; internalToken: string; timeoutMs: number; connections?: number }): EnrichmentClient {
  const pool = new Pool(baseUrl, { connections, pipelining: 1, headersTimeout: timeoutMs, bodyTimeout: timeoutMs });

  async function call(method: 'GET' | 'POST', path: string, accountId: string, body?: unknown): Promise<UpstreamResponse> {
    try {
      const res = await pool.request({
        method,
        path,
        headers: {
          'x-glimpse-internal-token': internalToken,
          'x-glimpse-account-id': accountId,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return { status: res.statusCode, body: await res.body.json() };
    } catch (err) {
      throw new AppError('service_unavailable', 'the lookup service is unavailable; retry later', { cause: err, headers: { 'Retry-After': '1' } });
    }
  }

  return {
    visitorDetails: (accountId, visitorId) => call('GET', `/internal/visitors/${encodeURIComponent(visitorId)}/details`, accountId),
    enrich: (accountId, body) => call('POST', '/internal/enrichment', accountId, body),
    close: () => pool.close(),
  };
}
