// One line of a company file (`glimpse import companies`): {"domain", "name", "industry", "size",
// "employees", "founded", "location": {"country", "region", "city"}, "profile_url"}. Only the
// domain is required; a field of the wrong type, or any NUL, makes the line a reported skip, never
// a failed batch. Fields the file adds beyond these are ignored.
import { z } from 'zod';
import { normalizeDomain } from '@glimpse/validation';
import { cleanLocation, cleanText, cleanUrl, type CompanyRow } from './company-record.js';

const INT4_MAX = 2_147_483_647;
const text = z.string().max(1000, 'at most 1000 characters').nullable().optional();

const lineSchema = z.looseObject({
  domain: z.string({ error: (i) => (i.input === undefined ? 'domain is required' : 'domain must be a string') }),
  name: text,
  industry: text,
  size: text,
  employees: z.int('employees must be a whole number').min(0).max(INT4_MAX).nullable().optional(),
  founded: z
    .int('founded must be a year')
    .min(1000, 'founded must be a year')
    .max(new Date().getUTCFullYear() + 1, 'founded must be a year')
    .nullable()
    .optional(),
  location: z.looseObject({ country: text, region: text, city: text }, 'location must be an object {country, region, city}').nullable().optional(),
  profile_url: text,
});

/** True when a string anywhere in the value holds a NUL (a `\u0000` escape: Postgres text cannot store it). */
function hasNul(value: unknown): boolean {
  if (typeof value === 'string') return value.includes('\0');
  if (Array.isArray(value)) return value.some(hasNul);
  if (value !== null && typeof value === 'object') return Object.entries(value).some(([k, v]) => k.includes('\0') || hasNul(v));
  return false;
}

function issueText(error: z.ZodError): string {
  const issue = error.issues[0]!;
  const path = issue.path.join('.');
  return path === '' || issue.message.startsWith(path) ? issue.message : `${path}: ${issue.message}`;
}

/** A parsed line as the row to store, or why it is skipped. */
export function companyLine(value: unknown): { ok: true; row: CompanyRow } | { ok: false; message: string } {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return { ok: false, message: 'a line must be a JSON object' };
  if (hasNul(value)) return { ok: false, message: 'contains a NUL character' };
  const parsed = lineSchema.safeParse(value);
  if (!parsed.success) return { ok: false, message: issueText(parsed.error) };
  const line = parsed.data;
  const domain = normalizeDomain(line.domain);
  if (domain === null) return { ok: false, message: `domain must be a domain name such as acme.com, got ${JSON.stringify(line.domain.slice(0, 60))}` };
  const profileUrl = cleanUrl(line.profile_url);
  if (cleanText(line.profile_url) !== null && profileUrl === null) return { ok: false, message: 'profile_url must be an absolute http(s) URL' };
  return {
    ok: true,
    row: {
      domain,
      name: cleanText(line.name),
      industry: cleanText(line.industry),
      size: cleanText(line.size),
      employees: line.employees ?? null,
      founded: line.founded ?? null,
      location: line.location ? cleanLocation(line.location.country, line.location.region, line.location.city) : null,
      profileUrl,
    },
  };
}
