// The store the person lookups read through (lookups.ts, person-disclosure.ts): a person's record
// by an identity, billed in the statement that finds it when a charge is given, and an account's
// imported visitors. data/person-repository.ts is its Postgres side.
import type { IdentityKind } from './identifiers.js';

export interface IdentityKey {
  kind: IdentityKind;
  value: string;
}

/** What a billed lookup appends to the usage ledger. */
export interface Charge {
  accountId: string;
  /** UTC day, YYYY-MM-DD. */
  day: string;
  /** The credit lease spent, for an account with a credit limit. */
  leaseId: string | null;
  /** A lookup by email marks its person paid for the billing period (enrichment.billed_persons): no later disclosure bills it again. */
  paid?: { period: string; personKey: string };
}

export interface StoredVisitor {
  /** The api.md §2.1 details text; null for persons imported before details were stored. */
  details: string | null;
  /** The record text, only when details is null (to derive them). */
  record: string | null;
  pageViews: unknown;
}

export interface PersonStore {
  /** The record text of the person behind the first matching key; with a charge, billed when found. */
  findRecord(keys: IdentityKey[], charge?: Charge): Promise<string | null>;
  /** Bills one lookup on its own (a lookup with `required` reads the record before it bills). */
  appendCharge(charge: Charge): Promise<void>;
  /** The account's imported visitor; `accountId` must be a UUID (the internal routes check it). */
  findVisitor(accountId: string, visitorId: string): Promise<StoredVisitor | null>;
}
