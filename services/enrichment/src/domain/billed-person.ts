// The billing unit of a disclosure: a person's enriched fields shown to an account (the details
// lookup of a tag-identified visitor, the visitor.identified webhook) bill what POST
// /visitors/enrichment bills, once per person per account per calendar month (UTC). A person is
// known by a keyed hash of the normalised email, never the email itself.
import { createErasedEmail } from '@glimpse/messaging';

/** The billing period of a UTC day (YYYY-MM-DD): the first of its month. */
export function billingPeriodOf(day: string): string {
  return `${day.slice(0, 7)}-01`;
}

/** The person's key in an account: HMAC-SHA256 under a per-account key (HKDF of the secret), as the erasure stand-ins. */
export type PersonKeyOf = (accountId: string, email: string) => string;

export function createPersonKey(secret: string): PersonKeyOf {
  const hash = createErasedEmail(secret);
  return (accountId, email) => hash(accountId, email).slice('erased:'.length);
}

/** A disclosure to bill: the person in the period, and the ledger row's day and credit lease. */
export interface PersonCharge {
  accountId: string;
  period: string;
  personKey: string;
  day: string;
  leaseId: string | null;
}

/** Where billed persons are kept (enrichment.billed_persons). */
export interface BilledPersonStore {
  /** Whether the person is billed to the account in the period already. */
  isBilled(accountId: string, period: string, personKey: string): Promise<boolean>;
  /** Records the person and, only when this call recorded them, the ledger row, atomically; true when it billed. */
  bill(charge: PersonCharge): Promise<boolean>;
}
