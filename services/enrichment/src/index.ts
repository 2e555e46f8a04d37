// The enrichment service (lookups): the enriched record (api.md §2.3) and its normalizer, identifier
// normalization, the visitor details record (api.md §2.1), companies (firmographics) by domain, and
// synthetic people for demos and tests.
export * from './domain/enriched-record.js';
export * from './domain/identifiers.js';
export * from './domain/visitor-details.js';
export { generatePerson } from './demo/demo-persons.js';
export { generateCompany, COMPANY_COUNT } from './demo/demo-companies.js';
export { startEnrichmentService } from './start.js';
export type { RunningEnrichmentService } from './start.js';
export { loadConfig, DEV_BILLING_KEY } from './config.js';
export { billingPeriodOf, createPersonKey } from './domain/billed-person.js';
export { importCompanies, importPersons, importVisitors } from './wiring/import-data.js';
export type { ImportReport, ImportOptions } from './wiring/import-data.js';
export { setCreditLimit, creditLimitOf } from './data/credit-repository.js';
export { usageTotals, usageBetween, rollUpUsage } from './data/usage-repository.js';
export { personRow } from './domain/import-persons.js';
export { companyOfPerson, toCompanyRecord, type CompanyRow } from './domain/company-record.js';
export { LOOKUP_STATEMENTS } from './data/person-repository.js';
export { INTERNAL_HEADERS } from './http/internal-routes.js';
