// The webhooks service's internal API (it owns webhook endpoints and their deliveries), for an
// authenticated account. Its answers, errors included, pass through as they are.
import { createInternalService, type InternalService, type ServiceEndpoint } from './internal-service.js';

export type WebhooksClient = InternalService;

export function createWebhooksClient(endpoint: ServiceEndpoint): WebhooksClient {
  return createInternalService({ ...endpoint, connections: 8, unavailableMessage: 'the webhooks service is unavailable; retry later' });
}
