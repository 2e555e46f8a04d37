// The visitors service's internal API (it owns visitors, sessions, identity links and per-site
// traffic), for an authenticated account. Its answers, errors included, pass through as they are.
import { createInternalService, type InternalService, type ServiceEndpoint } from './internal-service.js';

export type VisitorsClient = InternalService;

export function createVisitorsClient(endpoint: ServiceEndpoint): VisitorsClient {
  return createInternalService({
    ...endpoint,
    connections: endpoint.connections ?? 16,
    unavailableMessage: 'the visitors service is unavailable; retry later',
  });
}
