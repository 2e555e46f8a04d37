// The companies table: the billed find by domain (the usage ledger row appended in the same
// statement, as a person's lookup does), the unbilled lookup of many domains (the primary key's
// index, one query), and the set-based upserts of the two imports: a batch is one statement, its
// rows passed as one JSON array, in domain order so two imports lock rows in the same order.
import type { Db } from '@glimpse/db/enrichment';
import type { CompanyStore } from '../domain/companies.js';
import type { CompanyRow } from '../domain/company-record.js';

const COLUMNS = `domain, name, industry, size, employees, founded, location, profile_url AS "profileUrl"`;

const FIND = `SELECT ${COLUMNS} FROM companies WHERE domain = $1`;
const FIND_BILLED = `WITH hit AS (
    SELECT ${COLUMNS} FROM companies WHERE domain = $1
  ), billed AS (
    INSERT INTO usage_ledger (account_id, day, lease_id) SELECT $2::uuid, $3::date, $4::uuid FROM hit
  )
  SELECT * FROM hit`;
const LOOKUP = `SELECT ${COLUMNS} FROM companies
  WHERE domain = ANY($1::text[]) AND ($2::text IS NULL OR lower(industry) = lower($2)) AND ($3::text IS NULL OR size = $3)
  ORDER BY domain`;

const RECORDSET = `json_to_recordset($1::json) AS c(domain text, name text, industry text, size text, employees int, founded int, location jsonb, profile_url text)`;

/** A company file's rows: the file is the source of record, so an imported row replaces whatever was there. */
const UPSERT_IMPORTED = `INSERT INTO companies (domain, name, industry, size, employees, founded, location, profile_url, source, updated_at)
  SELECT c.domain, c.name, c.industry, c.size, c.employees, c.founded, c.location, c.profile_url, 'import', now() FROM ${RECORDSET} ORDER BY c.domain
  ON CONFLICT (domain) DO UPDATE SET name = EXCLUDED.name, industry = EXCLUDED.industry, size = EXCLUDED.size, employees = EXCLUDED.employees,
    founded = EXCLUDED.founded, location = EXCLUDED.location, profile_url = EXCLUDED.profile_url, source = 'import', updated_at = EXCLUDED.updated_at`;

/**
 * The employers imported persons name: what they know fills in or updates a row they wrote, and a
 * row a company import wrote is never touched.
 */
export const UPSERT_FROM_PERSONS = `INSERT INTO companies (domain, name, industry, size, employees, founded, location, profile_url, source, updated_at)
  SELECT c.domain, c.name, c.industry, c.size, c.employees, c.founded, c.location, c.profile_url, 'persons', now() FROM ${RECORDSET} ORDER BY c.domain
  ON CONFLICT (domain) DO UPDATE SET name = COALESCE(EXCLUDED.name, companies.name), industry = COALESCE(EXCLUDED.industry, companies.industry),
    size = COALESCE(EXCLUDED.size, companies.size), employees = COALESCE(EXCLUDED.employees, companies.employees),
    founded = COALESCE(EXCLUDED.founded, companies.founded), location = COALESCE(EXCLUDED.location, companies.location),
    profile_url = COALESCE(EXCLUDED.profile_url, companies.profile_url), updated_at = EXCLUDED.updated_at
  WHERE companies.source = 'persons'`;

/** The rows as the one JSON parameter of the upserts (keys are the recordset's column names). */
export function companiesJson(rows: CompanyRow[]): string {
  return JSON.stringify(rows.map(({ profileUrl, ...rest }) => ({ ...rest, profile_url: profileUrl })));
}

export function companyStore(db: Db): CompanyStore {
  return {
    async find(domain, charge) {
      const rows = charge
        ? await db.$queryRawUnsafe<CompanyRow[]>(FIND_BILLED, domain, charge.accountId, charge.day, charge.leaseId)
        : await db.$queryRawUnsafe<CompanyRow[]>(FIND, domain);
      return rows[0] ?? null;
    },
    lookup: (domains, { industry, size }) => db.$queryRawUnsafe<CompanyRow[]>(LOOKUP, domains, industry ?? null, size ?? null),
    async upsertImported(rows) {
      if (rows.length > 0) await db.$executeRawUnsafe(UPSERT_IMPORTED, companiesJson(rows));
    },
  };
}
