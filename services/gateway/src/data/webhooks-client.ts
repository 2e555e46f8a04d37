// The webhooks service's internal API (it owns webhook endpoints and their deliveries), for an
// authenticated account. Its answers, errors included, pass through as they are.
import { createInternalService, type UpstreamResponse } from './internal-service.js';

export interface WebhooksClient {
  call(method: 'GET' | 'POST' | 'PATCH' | 'DELETE', path: string, accountId: string, body?: unknown): Promise<UpstreamResponse>;
  close(): Promise<void>;
}

export function createWebhooksClient({ baseUrl, internalToken, timeoutMs }: { baseUrl: string; internalToken: string; timeoutMs: number }): WebhooksClient {
  const service = createInternalService({
    baseUrl,
    internalToken,
    timeoutMs,
    connections: 8,
    unavailableMessage: 'the webhooks service is unavailable; retry later',
  });
  return { call: (method, path, accountId, body) => service.call(method, path, accountId, body), close: () => service.close() };
}
