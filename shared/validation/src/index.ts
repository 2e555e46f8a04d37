// The one home of the identifier and address rules every service and tool applies: the ids we
// issue (UUIDs), the email rule of events and lookups, event names and the site tag's ids
// (event-rules.ts), the API key scopes (scopes.ts), an account's credit limit (credits.ts) and a
// company's domain (domains.ts). A leaf: it depends on zod alone, and the lint forbids it any
// infrastructure (eslint.config.mjs), so anything may depend on it.
import { z } from 'zod';

export { EVENT_NAME_PATTERN, COLLECTED_ID_PATTERN, VISITOR_ID_PATTERN, ENGAGED_SECONDS_MAX } from './event-rules.js';
export { SCOPES, isScope, type Scope } from './scopes.js';
export { CREDIT_LIMIT_MAX, creditLimitSchema } from './credits.js';
export { NETWORK_TYPES, COMPANY_NETWORK_TYPES, isNetworkType, namesCompany, type NetworkType } from './network-types.js';
export { DOMAIN_MAX_LENGTH, normalizeDomain } from './domains.js';

/** Ids Glimpse issues (accounts, credentials, playbooks, enrollments, events): UUIDs, any case. */
export const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isUuid(value: unknown): value is string {
  return typeof value === 'string' && UUID_PATTERN.test(value);
}

/** The longest address SMTP allows (RFC 5321 path limit). */
export const EMAIL_MAX_LENGTH = 254;

/**
 * An email as events and lookups take it: trimmed, lower-cased, at most 254 characters, a valid
 * address — so one person has one key everywhere. `base` may carry the caller's type messages.
 */
export function emailSchema({
  base = z.string(),
  tooLong = 'email must be at most 254 characters',
  invalid = 'email must be a valid email address',
}: { base?: z.ZodString; tooLong?: string; invalid?: string } = {}) {
  return base.trim().toLowerCase().max(EMAIL_MAX_LENGTH, tooLong).pipe(z.email(invalid));
}

/** z.email()'s own pattern (the one emailSchema checks with), so the function below agrees with it. */
const EMAIL_PATTERN = z.regexes.email;

/**
 * The email trimmed and lower-cased, or null when it is not a valid address: emailSchema's rules
 * without a schema parse (a hot path: every event's email; a test holds the two to the same answers).
 */
export function normalizeEmail(input: unknown): string | null {
  if (typeof input !== 'string') return null;
  const email = input.trim().toLowerCase();
  return email.length <= EMAIL_MAX_LENGTH && EMAIL_PATTERN.test(email) ? email : null;
}
