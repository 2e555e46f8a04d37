// The identifiers a person is found by: emails (trimmed, lower-cased), phones (E.164), the emails'
// SHA-256 and the professional-network profile URL, and
// the list of them a record carries, which is what the identity index stores.
import { createHash } from 'node:crypto';
import { isSupportedCountry, parsePhoneNumberFromString, type CountryCode } from 'libphonenumber-js';
import type { EnrichedRecord } from './enriched-record.js';
import { normalizeEmail } from '@glimpse/validation';

// The same email rule as the event endpoint's (@glimpse/validation), so one person has one key everywhere.
export { normalizeEmail };

/** An ISO 3166 region code libphonenumber knows, upper-cased, or undefined. */
function regionCode(region: string | undefined): CountryCode | undefined {
  const code = region?.trim().toUpperCase();
  return code && isSupportedCountry(code) ? code : undefined;
}

/**
 * The phone in E.164 (`+14155550134`), or null when it is not a valid number. A number written
 * without a country code is read in `defaultRegion` (e.g. "US"); with no region it is null. An
 * extension is dropped: the line is what identifies the person.
 */
export function normalizePhone(input: string | null | undefined, defaultRegion?: string): string | null {
  if (typeof input !== 'string' || input.length > 64) return null;
  const phone = parsePhoneNumberFromString(input, regionCode(defaultRegion));
  return phone?.isValid() ? phone.number : null;
}

/** The SHA-256 (hex) of the normalized email, as ad platforms match on. */
export function emailSha256(normalizedEmail: string): string {
  return createHash('sha256').update(normalizedEmail).digest('hex');
}

const SHA256_HEX = /^[0-9a-f]{64}$/i;

/** A SHA-256 hex digest lower-cased, or null when it is not one. */
export function normalizeSha256(input: string): string | null {
  const value = input.trim();
  return SHA256_HEX.test(value) ? value.toLowerCase() : null;
}

/** A scheme ("https://"): anchored, and its class cannot take the ':' that ends it, so it is tried once. */
const URL_SCHEME = /^[a-z][a-z0-9+.-]*:\/\//;
/** The characters `.` does not match in a JavaScript regex: the earlier `[?#].*$` kept a query that had one. */
const LINE_TERMINATOR = /[\n\r\u2028\u2029]/;
const WHITESPACE = /\s/;
const SLASH = 0x2f;

/**
 * A professional-network profile URL as the identity index keeps it: lower-cased, without scheme,
 * "www.", query, fragment or trailing slashes ("https://www.pronet.example/in/Jane/" →
 * "pronet.example/in/jane"). The migration that indexed earlier persons applies the same steps in
 * SQL; null when nothing that looks like host/path is left.
 *
 * Linear in the input: the query, fragment and trailing slashes are cut with index scans, and the
 * host/path shape is checked by hand. The regexes this replaces (`/\/+$/`, `[?#].*$` and
 * `^[^/\s]+\.[^/\s]+\/\S+$`) backtracked quadratically on runs of '/', '?' or '.' (18 ms on 2 KB
 * of slashes); the answers are the same (identifiers.test.ts compares both on generated input).
 */
export function normalizePronetUrl(input: string | null | undefined): string | null {
  if (typeof input !== 'string' || input.length > 2048) return null;
  const value = input
    .trim()
    .toLowerCase()
    .replace(URL_SCHEME, '')
    .replace(/^www\./, '');
  // A line break left inside is whitespace, which no profile key has: the old steps refused it too.
  if (LINE_TERMINATOR.test(value)) return null;
  let end = value.length;
  const query = value.indexOf('?');
  const fragment = value.indexOf('#');
  if (query >= 0) end = query;
  if (fragment >= 0 && fragment < end) end = fragment;
  while (end > 0 && value.charCodeAt(end - 1) === SLASH) end -= 1;
  const key = value.slice(0, end);
  return isHostAndPath(key) ? key : null;
}

/**
 * What `^[^/\s]+\.[^/\s]+\/\S+$` accepted: no whitespace; a host before the first '/' with a '.'
 * that has a character on each side; something after that '/'.
 */
function isHostAndPath(value: string): boolean {
  if (WHITESPACE.test(value)) return false;
  const slash = value.indexOf('/');
  if (slash < 0 || slash === value.length - 1) return false;
  const dot = value.indexOf('.', 1);
  return dot >= 0 && dot < slash - 1;
}

export type IdentityKind = 'email' | 'phone' | 'email_sha256' | 'pronet_url';

export interface PersonIdentity {
  kind: IdentityKind;
  value: string;
}

/**
 * Every email and phone of the record, normalized and without duplicates, emails first.
 * Company phones (company.phone_numbers, organization.phone) are not the person's and are left out.
 */
export function identitiesOf(record: EnrichedRecord, defaultRegion?: string): PersonIdentity[] {
  const { profile, traits } = record;
  const emails = [profile.email, traits.email, traits.work_email, traits.recommended_personal_email, ...traits.emails.map((e) => e.address)];
  const phones = [traits.mobile_phone, ...traits.phone_numbers];
  const found = new Map<string, PersonIdentity>();
  const add = (kind: PersonIdentity['kind'], value: string | null) => {
    if (value !== null) found.set(`${kind}:${value}`, { kind, value });
  };
  for (const email of emails) add('email', normalizeEmail(email));
  for (const phone of phones) add('phone', normalizePhone(phone, defaultRegion));
  for (const { kind, value } of [...found.values()]) if (kind === 'email') add('email_sha256', emailSha256(value));
  add('pronet_url', normalizePronetUrl(record.social.pronet.url));
  return [...found.values()];
}
