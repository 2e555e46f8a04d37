// The visitors service's internal API (it owns visitors, sessions, identity links and per-site
// traffic), for an authenticated account. Its answers, errors included, pass through as they are.
import { createInternalService, type UpstreamResponse } from './internal-service.js';

export interface VisitorsClient {
  call(method: 'GET' | 'POST' | 'PATCH' | 'DELETE', path: string, accountId: string, body?: unknown): Promise<UpstreamResponse>;
  close(): Promise<void>;
}

export function createVisitorsClient({
  baseUrl,
  internalToken,
  timeoutMs,
  connections = 16,
}: {
  baseUrl: string;
  internalToken: string;
  timeoutMs: number;
  connections?: number;
}): VisitorsClient {
  const service = createInternalService({
    baseUrl,
    internalToken,
    timeoutMs,
    connections,
    unavailableMessage: 'the visitors service is unavailable; retry later',
  });
  return { call: (method, path, accountId, body) => service.call(method, path, accountId, body), close: () => service.close() };
}
