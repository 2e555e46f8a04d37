// The two lookups (spec §4.1, §4.2) as use cases: validate, find, bill, answer. Both answer JSON
// text as stored at import (the served form): nothing is parsed and re-serialised per answer.
import { z } from 'zod';
import type { Db } from '@glimpse/db';
import { AppError } from '@glimpse/errors';
import { findRecord, findVisitor, type IdentityKey } from '../data/person-repository.js';
import type { CreditKeeper } from './credits.js';
import { normalizeRecord } from './enriched-record.js';
import { normalizeEmail, normalizePhone } from './identifiers.js';
import { servedDetails, toVisitorDetails } from './visitor-details.js';

const OBJECT_ID = /^[a-fA-F0-9]{24}$/;

export interface LookupDeps {
  db: Db;
  credits: CreditKeeper;
  defaultPhoneRegion: string;
}

/** The §2.1 details as JSON text. */
export async function visitorDetails({ db }: Pick<LookupDeps, 'db'>, accountId: string, visitorId: string): Promise<string> {
  if (!OBJECT_ID.test(visitorId)) throw new AppError('invalid_request', 'visitorId must be 24 hexadecimal characters');
  const found = await findVisitor(db, accountId, visitorId.toLowerCase());
  // Another account's visitor is indistinguishable from an unknown one: 404, never 403.
  if (!found) throw new AppError('not_found', `no visitor ${visitorId}`);
  // A person imported before details were stored: derived from the record (the slow way, once per answer).
  const details = found.details ?? JSON.stringify(toVisitorDetails(normalizeRecord(JSON.parse(found.record!))));
  return servedDetails(details, found.pageViews);
}

const enrichmentInput = z.strictObject(
  {
    email: z.string({ error: 'email must be a string' }).optional(),
    phone: z.string({ error: 'phone must be a string' }).optional(),
  },
  { error: (i) => (i.code === 'unrecognized_keys' ? `unknown field(s): ${i.keys.join(', ')}; send email and/or phone` : 'body must be a JSON object') },
);

/** The identities to try, email first: when both match different people, the email's wins. */
export function enrichmentKeys(body: unknown, defaultPhoneRegion: string): IdentityKey[] {
  const parsed = enrichmentInput.safeParse(body);
  if (!parsed.success) throw new AppError('invalid_request', parsed.error.issues[0]!.message);
  const { email, phone } = parsed.data;
  if (email === undefined && phone === undefined) throw new AppError('invalid_request', 'send an email or a phone to look up');
  const keys: IdentityKey[] = [];
  if (email !== undefined) {
    const value = normalizeEmail(email);
    if (!value) throw new AppError('invalid_request', 'email is not a valid email address');
    keys.push({ kind: 'email', value });
  }
  if (phone !== undefined) {
    const value = normalizePhone(phone, defaultPhoneRegion);
    if (!value) throw new AppError('invalid_request', `phone is not a phone number we can parse (numbers without a country code are read as ${defaultPhoneRegion})`);
    keys.push({ kind: 'phone', value });
  }
  return keys;
}

const today = () => new Date().toISOString().slice(0, 10);

/** The §2.3 record as JSON text; a match is billed (one ledger row) in the statement that finds it. */
export async function enrichPerson({ db, credits, defaultPhoneRegion }: LookupDeps, accountId: string, body: unknown): Promise<string> {
  const keys = enrichmentKeys(body, defaultPhoneRegion);
  const credit = await credits.take(accountId);
  if (!credit) {
    // Nobody to bill for is a 404 whatever the credits: look before saying 402.
    if ((await findRecord(db, keys)) === null) throw notFound();
    throw new AppError('payment_required', 'this account has used all its enrichment credits');
  }
  let record: string | null;
  try {
    record = await findRecord(db, keys, { accountId, day: today(), leaseId: credit.leaseId });
  } catch (err) {
    // Whether the row was written is unknown: the credit counts as spent, so a limit is never passed.
    credit.spent();
    throw err;
  }
  if (record === null) {
    credit.refund();
    throw notFound();
  }
  credit.spent();
  return record;
}

const notFound = () => new AppError('not_found', 'no person matches that email or phone (not billed)');
