// The playbook service's internal API (it owns playbooks, enrollments and the event catalog),
// for an authenticated account. Its answers, errors included, pass through as they are.
import { createInternalService, type ServiceEndpoint, type UpstreamResponse } from './internal-service.js';

export interface PlaybookClient {
  list(accountId: string): Promise<UpstreamResponse>;
  create(accountId: string, body: unknown): Promise<UpstreamResponse>;
  get(accountId: string, playbookId: string): Promise<UpstreamResponse>;
  update(accountId: string, playbookId: string, body: unknown): Promise<UpstreamResponse>;
  remove(accountId: string, playbookId: string): Promise<UpstreamResponse>;
  /** `search` is the client's query string, checked by the service. */
  enrollments(accountId: string, playbookId: string, search: string): Promise<UpstreamResponse>;
  catalog(accountId: string, search: string): Promise<UpstreamResponse>;
  /** What {event, email} would do now; the service writes nothing. */
  dryRun(accountId: string, event: { event: string; email: string }): Promise<UpstreamResponse>;
  /** An event's receipt: what it did to the playbooks it opts in to. */
  receipt(accountId: string, eventId: string): Promise<UpstreamResponse>;
  suppress(accountId: string, body: unknown): Promise<UpstreamResponse>;
  /** `search` is the client's query string, checked by the service. */
  suppressions(accountId: string, search: string): Promise<UpstreamResponse>;
  unsuppress(accountId: string, email: string): Promise<UpstreamResponse>;
  /** Erases the person from the playbook service's tables (the gateway erases its raw events). */
  erase(accountId: string, email: string): Promise<UpstreamResponse>;
  close(): Promise<void>;
}

export function createPlaybookClient(endpoint: ServiceEndpoint): PlaybookClient {
  const service = createInternalService({ ...endpoint, connections: 16, unavailableMessage: 'the playbook service is unavailable; retry later' });
  const one = (playbookId: string) => `/internal/playbooks/${encodeURIComponent(playbookId)}`;
  return {
    list: (accountId) => service.call('GET', '/internal/playbooks', accountId),
    create: (accountId, body) => service.call('POST', '/internal/playbooks', accountId, body),
    get: (accountId, playbookId) => service.call('GET', one(playbookId), accountId),
    update: (accountId, playbookId, body) => service.call('PATCH', one(playbookId), accountId, body),
    remove: (accountId, playbookId) => service.call('DELETE', one(playbookId), accountId),
    enrollments: (accountId, playbookId, search) => service.call('GET', `${one(playbookId)}/enrollments${search}`, accountId),
    catalog: (accountId, search) => service.call('GET', `/internal/events/catalog${search}`, accountId),
    dryRun: (accountId, event) => service.call('POST', '/internal/events/dry-run', accountId, event),
    receipt: (accountId, eventId) => service.call('GET', `/internal/events/${encodeURIComponent(eventId)}`, accountId),
    suppress: (accountId, body) => service.call('POST', '/internal/suppressions', accountId, body),
    suppressions: (accountId, search) => service.call('GET', `/internal/suppressions${search}`, accountId),
    unsuppress: (accountId, email) => service.call('DELETE', `/internal/suppressions/${encodeURIComponent(email)}`, accountId),
    erase: (accountId, email) => service.call('DELETE', `/internal/persons/${encodeURIComponent(email)}`, accountId),
    close: () => service.close(),
  };
}
