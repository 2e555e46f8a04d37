// The two lookups (api.md §4.1, §4.2) as use cases: validate, find, bill, answer. Both answer JSON
// text as stored at import (the served form): nothing is parsed and re-serialised per answer.
import { setImmediate as nextTurn } from 'node:timers/promises';
import { z } from 'zod';
import { enrichmentBulkSchema, enrichmentInputSchema } from '@glimpse/api';
import { AppError } from '@glimpse/errors';
import { billingPeriodOf, type PersonKeyOf } from './billed-person.js';
import type { CreditKeeper } from './credits.js';
import { normalizeRecord } from './enriched-record.js';
import { normalizeEmail, normalizePhone, normalizePronetUrl, normalizeSha256 } from './identifiers.js';
import type { Charge, IdentityKey, PersonStore } from './person-store.js';
import { servedDetails, toVisitorDetails } from './visitor-details.js';

const OBJECT_ID = /^[a-fA-F0-9]{24}$/;

export interface LookupDeps {
  persons: PersonStore;
  credits: CreditKeeper;
  defaultPhoneRegion: string;
  /** The person's key in billed_persons: an enrichment by email marks its person paid for the month. */
  personKey: PersonKeyOf;
}

/** The api.md §2.1 details as JSON text. */
export async function visitorDetails({ persons }: Pick<LookupDeps, 'persons'>, accountId: string, visitorId: string): Promise<string> {
  if (!OBJECT_ID.test(visitorId)) throw new AppError('invalid_request', 'visitorId must be 24 hexadecimal characters');
  const found = await persons.findVisitor(accountId, visitorId.toLowerCase());
  // Another account's visitor is indistinguishable from an unknown one: 404, never 403.
  if (!found) throw new AppError('not_found', `no visitor ${visitorId}`);
  // A person imported before details were stored: derived from the record (the slow way, once per answer).
  const details = found.details ?? JSON.stringify(toVisitorDetails(normalizeRecord(JSON.parse(found.record!))));
  return servedDetails(details, found.pageViews);
}

/** The field paths of the api.md §2.3 record ("job.title", "company.name"): what `required` may name. */
function fieldPaths(value: unknown, prefix = '', out = new Set<string>()): Set<string> {
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    for (const [key, child] of Object.entries(value)) {
      const path = prefix ? `${prefix}.${key}` : key;
      out.add(path);
      fieldPaths(child, path, out);
    }
  }
  return out;
}
const FIELD_PATHS = fieldPaths(normalizeRecord({}));

export interface LookupRequest {
  /** The identities to try, in order. */
  keys: IdentityKey[];
  /** Field paths a record must have (not null, "" or []) to be answered and billed. */
  required: string[];
}

/** The identities to try, email first: when both match different people, the email's wins. */
export function parseLookup(body: unknown, defaultPhoneRegion: string): LookupRequest {
  const parsed = enrichmentInputSchema.safeParse(body);
  if (!parsed.success) throw new AppError('invalid_request', parsed.error.issues[0]!.message);
  const { email, phone, email_sha256: hashed, pronet_url: pronetUrl, required = [] } = parsed.data;
  if (email === undefined && phone === undefined && hashed === undefined && pronetUrl === undefined) {
    throw new AppError('invalid_request', 'send an email, a phone, an email_sha256 or a pronet_url to look up');
  }
  const keys: IdentityKey[] = [];
  if (email !== undefined) {
    const value = normalizeEmail(email);
    if (!value) throw new AppError('invalid_request', 'email is not a valid email address');
    keys.push({ kind: 'email', value });
  }
  if (hashed !== undefined) {
    const value = normalizeSha256(hashed);
    if (!value) throw new AppError('invalid_request', 'email_sha256 must be the 64 hexadecimal characters of the SHA-256 of the lower-cased, trimmed email');
    keys.push({ kind: 'email_sha256', value });
  }
  if (phone !== undefined) {
    const value = normalizePhone(phone, defaultPhoneRegion);
    if (!value)
      throw new AppError('invalid_request', `phone is not a phone number we can parse (numbers without a country code are read as ${defaultPhoneRegion})`);
    keys.push({ kind: 'phone', value });
  }
  if (pronetUrl !== undefined) {
    const value = normalizePronetUrl(pronetUrl);
    if (!value) throw new AppError('invalid_request', 'pronet_url must be the URL of a profile, e.g. https://pronet.example/in/jane-doe');
    keys.push({ kind: 'pronet_url', value });
  }
  const unknown = required.find((path) => !FIELD_PATHS.has(path));
  if (unknown !== undefined)
    throw new AppError(
      'invalid_request',
      `required names an unknown field path: ${JSON.stringify(unknown).slice(0, 140)} (paths of the enriched record, such as "job.title" or "company.name")`,
    );
  return { keys, required: [...new Set(required)] };
}

function isEmpty(value: unknown): boolean {
  return value === undefined || value === null || value === '' || (Array.isArray(value) && value.length === 0);
}

/** The first required path the record text has no value at, or null. */
export function missingField(record: string, required: string[]): string | null {
  if (required.length === 0) return null;
  const parsed: unknown = JSON.parse(record);
  for (const path of required) {
    let value: unknown = parsed;
    for (const part of path.split('.'))
      value = value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>)[part] : undefined;
    if (isEmpty(value)) return path;
  }
  return null;
}

/** The UTC day a lookup is billed on, YYYY-MM-DD. */
export const today = () => new Date().toISOString().slice(0, 10);

/** The answer of one enrichment: the record's JSON text, and the credits left when the account has a limit. */
export interface Enriched {
  record: string;
  creditsLeft: number | null;
}

/** The response header that tells the credits left, on every answer of an account with a limit. */
export const CREDITS_HEADER = 'Credits-Remaining';

/** The error, with the credits left in its headers when the account has a limit. */
export function withCredits(err: unknown, left: number | null): unknown {
  if (err instanceof AppError && left !== null) err.headers[CREDITS_HEADER] = String(left);
  return err;
}

/**
 * The api.md §2.3 record as JSON text; a match is billed (one ledger row) in the statement that finds it.
 * With `required`, the record is read first and billed only when it has every required field.
 */
export async function enrichPerson(deps: LookupDeps, accountId: string, body: unknown): Promise<Enriched> {
  const { persons, credits, defaultPhoneRegion } = deps;
  const { keys, required } = parseLookup(body, defaultPhoneRegion);
  const credit = await credits.take(accountId);
  if (!credit) {
    // Nobody to bill for is a 404 whatever the credits: look before saying 402.
    const found = await persons.findRecord(keys);
    if (found === null || missingField(found, required) !== null) throw withCredits(notFound(required), 0);
    throw withCredits(new AppError('payment_required', 'this account has used all its enrichment credits'), 0);
  }
  let record: string | null;
  const charge = chargeOf(deps, accountId, keys, credit.leaseId);
  try {
    if (required.length === 0) {
      record = await persons.findRecord(keys, charge);
    } else {
      record = await persons.findRecord(keys);
      if (record !== null && missingField(record, required) !== null) record = null;
      if (record !== null) await persons.appendCharge(charge);
    }
  } catch (err) {
    // Whether the row was written is unknown: the credit counts as spent, so a limit is never passed.
    credit.spent();
    throw withCredits(err, credit.remaining());
  }
  if (record === null) {
    credit.refund();
    throw withCredits(notFound(required), credit.remaining());
  }
  credit.spent();
  return { record, creditsLeft: credit.remaining() };
}

/**
 * A lookup's charge. A person enriched by email is paid for this month: disclosing the same email's
 * fields later in the month (the details lookup, the webhook) bills nothing more; the mark goes in
 * the statement that bills the lookup.
 */
function chargeOf({ personKey }: LookupDeps, accountId: string, keys: IdentityKey[], leaseId: string | null): Charge {
  const day = today();
  const email = keys.find((k) => k.kind === 'email')?.value;
  return { accountId, day, leaseId, ...(email !== undefined ? { paid: { period: billingPeriodOf(day), personKey: personKey(accountId, email) } } : {}) };
}

/**
 * Up to 100 lookups, one after another so that billing and a 402 fall exactly as they would for
 * single calls in that order; each item's answer in order as JSON text:
 * `{"billed":n,"results":[{"status":200,"record":{…}} | {"status":404,"error":…,"message":…}]}`.
 */
export async function enrichBulk(deps: LookupDeps, accountId: string, body: unknown): Promise<Enriched> {
  return answerInOrder(parseBulk(body), (item) => enrichPerson(deps, accountId, item));
}

/** The bulk answer of items looked up one after another by `one` (a person's or a company's enrichment). */
export async function answerInOrder(items: unknown[], one: (item: unknown) => Promise<Enriched>): Promise<Enriched> {
  const parts: string[] = [];
  let billed = 0;
  let creditsLeft: number | null = null;
  for (const [index, item] of items.entries()) {
    // Back to the event loop between items: an item refused before any query (a 400 from parsing)
    // awaits nothing that would let other requests in, and 100 of them must not hold the loop for
    // the whole bulk call. setImmediate runs after pending I/O callbacks, unlike a
    // resolved promise.
    if (index > 0) await nextTurn();
    try {
      const answer = await one(item);
      billed += 1;
      creditsLeft = answer.creditsLeft;
      parts.push(`{"status":200,"record":${answer.record}}`);
    } catch (err) {
      if (!(err instanceof AppError) || err.status >= 500) throw err;
      if (err.headers[CREDITS_HEADER] !== undefined) creditsLeft = Number(err.headers[CREDITS_HEADER]);
      parts.push(JSON.stringify({ status: err.status, ...err.toBody() }));
    }
  }
  return { record: `{"billed":${billed},"results":[${parts.join(',')}]}`, creditsLeft };
}

const bulkInput = enrichmentBulkSchema(z.unknown());

export function parseBulk(body: unknown): unknown[] {
  const parsed = bulkInput.safeParse(body);
  if (!parsed.success) throw new AppError('invalid_request', parsed.error.issues[0]!.message);
  return parsed.data.items;
}

const notFound = (required: string[] = []) =>
  new AppError(
    'not_found',
    required.length > 0 ? 'no person matches with every required field (not billed)' : 'no person matches that email or phone (not billed)',
  );
