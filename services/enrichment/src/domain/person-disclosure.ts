// A person's api.md §2.1 fields disclosed to an account (the details lookup of a visitor its site tag
// identified, the visitor.identified webhook): billed as POST /visitors/enrichment bills (one
// identity match and one enriched record), at most once per person per account per calendar month.
// An account without credits is told the person exists but not shown the fields.
import { AppError } from '@glimpse/errors';
import { billingPeriodOf, type BilledPersonStore, type PersonKeyOf } from './billed-person.js';
import type { CreditKeeper } from './credits.js';
import { normalizeRecord } from './enriched-record.js';
import { normalizeEmail } from './identifiers.js';
import { today, withCredits } from './lookups.js';
import type { PersonStore } from './person-store.js';
import { toVisitorDetails, type VisitorDetails } from './visitor-details.js';

export interface DisclosureDeps {
  persons: Pick<PersonStore, 'findRecord'>;
  credits: CreditKeeper;
  billedPersons: BilledPersonStore;
  personKey: PersonKeyOf;
}

/** `billed`: this call billed the person (false when already billed in the period). */
export type Disclosure = { disclosed: true; billed: boolean; details: VisitorDetails } | { disclosed: false; reason: 'credits_exhausted' };

export interface DisclosureAnswer {
  answer: Disclosure;
  creditsLeft: number | null;
}

/** {email, billable: true}: the caller says it shows the fields to the account, so they are billed. */
export function parseDisclosure(body: unknown): string {
  const { email, billable } = (body !== null && typeof body === 'object' ? body : {}) as { email?: unknown; billable?: unknown };
  const normalized = normalizeEmail(email);
  if (!normalized) throw new AppError('invalid_request', 'email must be a valid email address');
  if (billable !== true) throw new AppError('invalid_request', "billable must be true: a person's fields are disclosed only as a billed disclosure");
  return normalized;
}

export async function disclosePerson(
  { persons, credits, billedPersons, personKey }: DisclosureDeps,
  accountId: string,
  body: unknown,
): Promise<DisclosureAnswer> {
  const email = parseDisclosure(body);
  const record = await persons.findRecord([{ kind: 'email', value: email }]);
  // Nobody to disclose is nothing to bill.
  if (record === null) throw new AppError('not_found', 'nobody with this email');
  const details = toVisitorDetails(normalizeRecord(JSON.parse(record)));
  const day = today();
  const charge = { accountId, period: billingPeriodOf(day), personKey: personKey(accountId, email), day };
  // Paid for this month already (a disclosure or an enrichment): shown again without a credit.
  if (await billedPersons.isBilled(accountId, charge.period, charge.personKey))
    return { answer: { disclosed: true, billed: false, details }, creditsLeft: null };
  const credit = await credits.take(accountId);
  if (!credit) return { answer: { disclosed: false, reason: 'credits_exhausted' }, creditsLeft: 0 };
  let billed: boolean;
  try {
    billed = await billedPersons.bill({ ...charge, leaseId: credit.leaseId });
  } catch (err) {
    // Whether the row was written is unknown: the credit counts as spent, so a limit is never passed.
    credit.spent();
    throw withCredits(err, credit.remaining());
  }
  // Another disclosure of the person billed it between the check and the insert.
  if (billed) credit.spent();
  else credit.refund();
  return { answer: { disclosed: true, billed, details }, creditsLeft: credit.remaining() };
}
