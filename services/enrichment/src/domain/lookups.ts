// The two lookups (spec §4.1, §4.2) as use cases: validate, find, bill, answer.
import { z } from 'zod';
import type { Db } from '@glimpse/db';
import { AppError } from '@glimpse/errors';
import { findPersonByIdentities, findVisitor, type IdentityKey } from '../data/person-repository.js';
import { chargeEnrichment } from '../data/billing-repository.js';
import { normalizeRecord, type EnrichedRecord } from './enriched-record.js';
import { normalizeEmail, normalizePhone } from './identifiers.js';
import { toVisitorDetails } from './visitor-details.js';

const OBJECT_ID = /^[a-fA-F0-9]{24}$/;

export interface LookupDeps {
  db: Db;
  defaultPhoneRegion: string;
}

export async function visitorDetails({ db }: LookupDeps, accountId: string, visitorId: string) {
  if (!OBJECT_ID.test(visitorId)) throw new AppError('invalid_request', 'visitorId must be 24 hexadecimal characters');
  const found = await findVisitor(db, accountId, visitorId.toLowerCase());
  // Another account's visitor is indistinguishable from an unknown one: 404, never 403.
  if (!found) throw new AppError('not_found', `no visitor ${visitorId}`);
  return toVisitorDetails(normalizeRecord(found.record), found.pageViews);
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

export async function enrichPerson({ db, defaultPhoneRegion }: LookupDeps, accountId: string, body: unknown): Promise<EnrichedRecord> {
  const keys = enrichmentKeys(body, defaultPhoneRegion);
  const person = await findPersonByIdentities(db, keys);
  if (!person) throw new AppError('not_found', 'no person matches that email or phone (not billed)');
  if (!(await chargeEnrichment(db, accountId))) {
    throw new AppError('payment_required', 'this account has used all its enrichment credits');
  }
  return normalizeRecord(person.record);
}
