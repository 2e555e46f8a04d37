// The companies view as the gateway answers it: the visitors service's rows joined with the
// companies' firmographics (enrichment's), a company's display name (its record's, else the one the
// network data gave, else its key), and the list as CSV. Pure.
import type { CompanyRecord, CompanySummary } from '@glimpse/api';

/** A row as the visitors service answers it: the summary without its firmographics, the name maybe unknown. */
export type CompanyRowIn = Omit<CompanySummary, 'firmographics' | 'name'> & { name: string | null };

/** The query string keys of GET /account/companies, as the visitors service takes them (industry and size stay here). */
export const FORWARDED_FILTERS = ['site', 'since', 'until', 'country', 'network_type', 'min_visits', 'sort', 'limit', 'cursor'] as const;

/** A key that can be a domain (firmographics are keyed by domain; a key from a name has a space or no dot). */
export const looksLikeDomain = (key: string): boolean => key.includes('.') && !/\s/.test(key);

export function withFirmographics(row: CompanyRowIn, records: ReadonlyMap<string, CompanyRecord>): CompanySummary {
  const firmographics = records.get(row.domain ?? row.key) ?? records.get(row.key) ?? null;
  return { ...row, name: firmographics?.name ?? row.name ?? row.key, firmographics };
}

const CSV_COLUMNS = [
  'name',
  'domain',
  'industry',
  'size',
  'employees',
  'country',
  'region',
  'city',
  'network_type',
  'visitors',
  'identified',
  'sessions',
  'page_views',
  'first_visit',
  'last_visit',
  'top_pages',
] as const;

/** RFC 4180: a field with a comma, quote or line break is quoted, quotes doubled; a leading =, +, - or @ is prefixed with ' (no formula in a spreadsheet). */
export function csvField(value: string | number | null): string {
  if (value === null) return '';
  let text = String(value);
  if (typeof value === 'string' && /^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

export function companiesCsv(rows: readonly CompanySummary[]): string {
  const lines = [CSV_COLUMNS.join(',')];
  for (const r of rows) {
    const f = r.firmographics;
    const values: Record<(typeof CSV_COLUMNS)[number], string | number | null> = {
      name: r.name,
      domain: r.domain ?? f?.domain ?? null,
      industry: f?.industry ?? null,
      size: f?.size ?? null,
      employees: f?.employees ?? null,
      country: r.location?.country ?? null,
      region: r.location?.region ?? null,
      city: r.location?.city ?? null,
      network_type: r.network_type,
      visitors: r.visitors,
      identified: r.identified,
      sessions: r.sessions,
      page_views: r.page_views,
      first_visit: r.first_visit,
      last_visit: r.last_visit,
      top_pages: r.top_pages.map((p) => p.path).join(' '),
    };
    lines.push(CSV_COLUMNS.map((c) => csvField(values[c])).join(','));
  }
  return `${lines.join('\r\n')}\r\n`;
}
