// The identifiers a person is found by: emails (trimmed, lower-cased) and phones (E.164), and
// the list of them a record carries, which is what the identity index stores.
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

export interface PersonIdentity {
  kind: 'email' | 'phone';
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
  return [...found.values()];
}
