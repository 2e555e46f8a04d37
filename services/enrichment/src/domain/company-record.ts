// A company (firmographics) as stored and as served (@glimpse/api's CompanyRecord), and the company
// an imported person's record names: the rules that make a vendor's values safe to store (no NUL,
// integers Postgres holds, a year that is a year) live here, so a bad value nulls one field and
// never fails the chunk it came in.
import type { CompanyRecord, EnrichedRecord } from '@glimpse/api';
import { normalizeDomain } from '@glimpse/validation';
import { absoluteHttpUrl } from './urls.js';

export interface CompanyLocation {
  country: string | null;
  region: string | null;
  city: string | null;
}

/** A company as the companies table holds it (without its source and times). */
export interface CompanyRow {
  domain: string;
  name: string | null;
  industry: string | null;
  size: string | null;
  employees: number | null;
  founded: number | null;
  /** Null when none of its parts is known. */
  location: CompanyLocation | null;
  profileUrl: string | null;
}

const INT4_MAX = 2_147_483_647;
const MAX_TEXT = 1000;

/** Text worth storing: trimmed, not empty, no NUL (Postgres text cannot hold one), not absurdly long. */
export function cleanText(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  const text = value.trim();
  return text === '' || text.includes('\0') || text.length > MAX_TEXT ? null : text;
}

export function cleanEmployees(value: unknown): number | null {
  return Number.isInteger(value) && (value as number) >= 0 && (value as number) <= INT4_MAX ? (value as number) : null;
}

/** A founding year: a whole number no later than next year (a vendor's 0 or 20150 is no year). */
export function cleanYear(value: unknown): number | null {
  const latest = new Date().getUTCFullYear() + 1;
  return Number.isInteger(value) && (value as number) >= 1000 && (value as number) <= latest ? (value as number) : null;
}

export function cleanLocation(country: unknown, region: unknown, city: unknown): CompanyLocation | null {
  const location = { country: cleanText(country), region: cleanText(region), city: cleanText(city) };
  return location.country === null && location.region === null && location.city === null ? null : location;
}

export function cleanUrl(value: unknown): string | null {
  const text = cleanText(value);
  return text === null ? null : (absoluteHttpUrl(text) ?? null);
}

/** The served record of a stored company: every field present, null when unknown. */
export function toCompanyRecord(row: CompanyRow): CompanyRecord {
  const { domain, name, industry, size, employees, founded, location, profileUrl } = row;
  return {
    domain,
    name,
    industry,
    size,
    employees,
    founded,
    location: { country: location?.country ?? null, region: location?.region ?? null, city: location?.city ?? null },
    pronet_url: profileUrl,
  };
}

/**
 * The employer an imported person names, keyed by its website (else the organization's primary
 * domain); null when neither is a domain.
 */
export function companyOfPerson({ company, organization }: EnrichedRecord): CompanyRow | null {
  const domain = normalizeDomain(company.website) ?? normalizeDomain(organization.primary_domain);
  if (domain === null) return null;
  const place = company.location;
  return {
    domain,
    name: cleanText(company.name),
    industry: cleanText(company.industry),
    size: cleanText(company.size),
    employees: cleanEmployees(organization.estimated_num_employees),
    founded: cleanYear(company.founded),
    location: cleanLocation(place.country, place.state ?? place.region, place.city ?? place.locality),
    profileUrl: cleanUrl(company.pronet.url),
  };
}

/** Two sightings of one company in a chunk: what the later one knows wins, the earlier fills its gaps. */
export function mergeCompany(earlier: CompanyRow, later: CompanyRow): CompanyRow {
  return {
    domain: later.domain,
    name: later.name ?? earlier.name,
    industry: later.industry ?? earlier.industry,
    size: later.size ?? earlier.size,
    employees: later.employees ?? earlier.employees,
    founded: later.founded ?? earlier.founded,
    location: later.location ?? earlier.location,
    profileUrl: later.profileUrl ?? earlier.profileUrl,
  };
}
