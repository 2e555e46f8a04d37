// The companies' use cases: the billed enrichment by domain (one and bulk, billed exactly as a
// person's: one usage ledger row, an identity match plus an enriched record, per match) and the
// unbilled lookup other services compose with. They read through a CompanyStore (data/company-repository.ts).
import { z } from 'zod';
import { companiesLookupSchema, companyEnrichmentBulkSchema, companyEnrichmentInputSchema, type CompanyRecord } from '@glimpse/api';
import { AppError } from '@glimpse/errors';
import { normalizeDomain } from '@glimpse/validation';
import type { CreditKeeper } from './credits.js';
import { toCompanyRecord, type CompanyRow } from './company-record.js';
import { answerInOrder, today, withCredits, type Enriched } from './lookups.js';
import type { Charge } from './person-store.js';

export interface CompanyStore {
  /** The company of a normalized domain; with a charge, billed in the statement that finds it. */
  find(domain: string, charge?: Charge): Promise<CompanyRow | null>;
  /** The companies of these normalized domains (of the industry, any case, and the size, when given): one indexed query. */
  lookup(domains: string[], filters: { industry?: string; size?: string }): Promise<CompanyRow[]>;
  /** Writes imported companies (source "import"), replacing what was there; one statement. */
  upsertImported(rows: CompanyRow[]): Promise<void>;
}

export interface CompanyLookupDeps {
  companies: CompanyStore;
  credits: CreditKeeper;
}

/** The normalized domain of POST /companies/enrichment's body, or a 400 that says what is wrong. */
export function parseCompanyLookup(body: unknown): string {
  const parsed = companyEnrichmentInputSchema.safeParse(body);
  if (!parsed.success) throw new AppError('invalid_request', parsed.error.issues[0]!.message);
  const domain = normalizeDomain(parsed.data.domain);
  if (domain === null) throw new AppError('invalid_request', 'domain must be a domain name such as acme.com (or a URL of the site)');
  return domain;
}

const notFound = () => new AppError('not_found', 'no company has this domain (not billed)');
const asText = (row: CompanyRow) => JSON.stringify(toCompanyRecord(row));

/** The company record as JSON text; a match is billed (one ledger row) in the statement that finds it. */
export async function enrichCompany({ companies, credits }: CompanyLookupDeps, accountId: string, body: unknown): Promise<Enriched> {
  const domain = parseCompanyLookup(body);
  const credit = await credits.take(accountId);
  if (!credit) {
    // Nothing to bill for is a 404 whatever the credits: look before saying 402.
    if ((await companies.find(domain)) === null) throw withCredits(notFound(), 0);
    throw withCredits(new AppError('payment_required', 'this account has used all its enrichment credits'), 0);
  }
  let row: CompanyRow | null;
  try {
    row = await companies.find(domain, { accountId, day: today(), leaseId: credit.leaseId });
  } catch (err) {
    // Whether the row was written is unknown: the credit counts as spent, so a limit is never passed.
    credit.spent();
    throw withCredits(err, credit.remaining());
  }
  if (row === null) {
    credit.refund();
    throw withCredits(notFound(), credit.remaining());
  }
  credit.spent();
  return { record: asText(row), creditsLeft: credit.remaining() };
}

const bulkInput = companyEnrichmentBulkSchema(z.unknown());

/** Up to 100 company enrichments, answered and billed in order as single calls would be. */
export async function enrichCompaniesBulk(deps: CompanyLookupDeps, accountId: string, body: unknown): Promise<Enriched> {
  const parsed = bulkInput.safeParse(body);
  if (!parsed.success) throw new AppError('invalid_request', parsed.error.issues[0]!.message);
  return answerInOrder(parsed.data.items, (item) => enrichCompany(deps, accountId, item));
}

/**
 * The companies of the domains that exist (and match the filters), not billed. A string that is no
 * domain names no company: it is left out, not refused, so one odd domain from IP data does not
 * fail the others.
 */
export async function lookupCompanies(companies: CompanyStore, body: unknown): Promise<{ items: CompanyRecord[] }> {
  const parsed = companiesLookupSchema.safeParse(body);
  if (!parsed.success) throw new AppError('invalid_request', parsed.error.issues[0]!.message);
  const { domains, industry, size } = parsed.data;
  const keys = [...new Set(domains.map(normalizeDomain).filter((d): d is string => d !== null))];
  if (keys.length === 0) return { items: [] };
  const rows = await companies.lookup(keys, { industry, size });
  return { items: rows.map(toCompanyRecord) };
}
