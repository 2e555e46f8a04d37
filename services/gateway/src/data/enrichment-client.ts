// The internal enrichment service: the lookups and the account's usage, for an authenticated
// account, and its credit limit and all-time usage, for the operator (see internal-service.ts for
// how calls are made).
import { createInternalService, type ServiceEndpoint, type UpstreamResponse } from './internal-service.js';

export type { UpstreamResponse } from './internal-service.js';

export interface EnrichmentClient {
  visitorDetails(accountId: string, visitorId: string): Promise<UpstreamResponse>;
  /**
   * The api.md §2.1 fields of the person behind an email, disclosed to the account and billed as an
   * enrichment once per person per month: {disclosed: true, details} or, without credits,
   * {disclosed: false}; 404 when nobody has the email.
   */
  personDetails(accountId: string, email: string): Promise<UpstreamResponse>;
  enrich(accountId: string, body: unknown): Promise<UpstreamResponse>;
  enrichBulk(accountId: string, body: unknown): Promise<UpstreamResponse>;
  /** A company's record by {domain}, billed as a person's enrichment. */
  enrichCompany(accountId: string, body: unknown): Promise<UpstreamResponse>;
  enrichCompaniesBulk(accountId: string, body: unknown): Promise<UpstreamResponse>;
  /**
   * The companies of up to 10,000 domains ({domains, industry?, size?}, checked by the service) that
   * exist and match: {items: CompanyRecord[]}; not billed, for views that compose companies.
   */
  companies(accountId: string, body: unknown): Promise<UpstreamResponse>;
  /** An account's erasure of a person: its visitors matched to them go, the email leaves the others' page views ({deletedVisitors, hashedVisitors}). */
  erasePerson(accountId: string, email: string, replacement: string): Promise<UpstreamResponse>;
  /** Usage by day; `search` is the client's query string ("" or "?from=…&to=…"), checked by the service. */
  usage(accountId: string, search: string): Promise<UpstreamResponse>;
  /** Sets the account's credit limit (null: none); `body` is {credits}, checked by the service. Answers {credits}. */
  setCreditLimit(accountId: string, body: unknown): Promise<UpstreamResponse>;
  /** The account's usage of all time ({identityMatches, enrichedRecords}). */
  usageTotals(accountId: string): Promise<UpstreamResponse>;
  close(): Promise<void>;
}

export function createEnrichmentClient(endpoint: ServiceEndpoint): EnrichmentClient {
  const service = createInternalService({ ...endpoint, unavailableMessage: 'the lookup service is unavailable; retry later' });
  return {
    visitorDetails: (accountId, visitorId) => service.call('GET', `/internal/visitors/${encodeURIComponent(visitorId)}/details`, accountId),
    personDetails: (accountId, email) => service.call('POST', '/internal/persons/details', accountId, { email, billable: true }),
    enrich: (accountId, body) => service.call('POST', '/internal/enrichment', accountId, body),
    enrichBulk: (accountId, body) => service.call('POST', '/internal/enrichment/bulk', accountId, body),
    enrichCompany: (accountId, body) => service.call('POST', '/internal/companies/enrichment', accountId, body),
    enrichCompaniesBulk: (accountId, body) => service.call('POST', '/internal/companies/enrichment/bulk', accountId, body),
    companies: (accountId, body) => service.call('POST', '/internal/companies/lookup', accountId, body),
    erasePerson: (accountId, email, replacement) => service.call('POST', '/internal/persons/erase', accountId, { email, replacement }),
    usage: (accountId, search) => service.call('GET', `/internal/usage${search}`, accountId),
    setCreditLimit: (accountId, body) => service.call('PUT', '/internal/credits', accountId, body),
    usageTotals: (accountId) => service.call('GET', '/internal/usage/totals', accountId),
    close: () => service.close(),
  };
}
