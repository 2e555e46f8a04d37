// Companies' first visits to sites: one company.visited delivery per enabled endpoint of the
// account that subscribes to it, carrying the company's firmographics as enrichment knows them now.
// A chunk of messages is scheduled together: one question for the subscribed accounts, one lookup
// of every domain, one statement for the deliveries. The visit's eventId is the delivery's
// webhook-id, so a redelivered message adds nothing.
import type { CompanyRecord } from '@glimpse/api';
import type { CompanyVisitedMessage } from '@glimpse/messaging';
import { normalizeDomain } from '@glimpse/validation';
import { companyVisitedPayloadOf } from './company-payload.js';

const TYPE = 'company.visited';

/** A message and the broker's append time of it (its deliveries go to the endpoints that existed then). */
export interface CompanyVisit {
  message: CompanyVisitedMessage;
  publishedAt: Date;
}

export interface CompanyDelivery {
  accountId: string;
  eventId: string;
  /** Deliveries of one company and site reach an endpoint in order. */
  siteId: string;
  company: string;
  type: typeof TYPE;
  payload: string;
  publishedAt: Date;
}

export interface CompanyDeliveryStore {
  /** Those of the accounts with an enabled endpoint subscribed to the type. */
  subscribedAccounts(accountIds: string[], type: typeof TYPE): Promise<Set<string>>;
  /** Schedules each delivery for each subscribed endpoint without it yet, in one statement; returns how many were added. */
  enqueue(deliveries: CompanyDelivery[]): Promise<number>;
}

export interface CompanyDirectory {
  /**
   * The records of those of the (normalized) domains that have one, not billed; `accountId` is the
   * account the call is made for. Throws when it cannot tell: the chunk is retried, never dropped.
   */
  lookup(domains: string[], accountId: string): Promise<CompanyRecord[]>;
}

/** The domain as company records are keyed (lower-case, without www.), or null. */
const domainOf = (message: CompanyVisitedMessage) => normalizeDomain(message.domain);

/** The record of each visit's domain, from one lookup of them all. */
async function recordsOf(visits: CompanyVisit[], companies: CompanyDirectory): Promise<Map<string, CompanyRecord>> {
  const domains = [...new Set(visits.flatMap(({ message }) => domainOf(message) ?? []))];
  if (domains.length === 0) return new Map();
  // The lookup is the same for every account; the first visit's names the call.
  const records = await companies.lookup(domains, visits[0]!.message.accountId);
  return new Map(records.map((r) => [r.domain, r]));
}

/** Each visit once (a chunk may hold a visit twice: published at least once). */
function distinct(visits: CompanyVisit[]): CompanyVisit[] {
  return [...new Map(visits.map((v) => [`${v.message.accountId}:${v.message.eventId}`, v])).values()];
}

export async function scheduleCompanyVisits(
  visits: CompanyVisit[],
  { store, companies }: { store: CompanyDeliveryStore; companies: CompanyDirectory },
): Promise<number> {
  if (visits.length === 0) return 0;
  // Most accounts subscribe to nothing: enrichment is asked only for visits someone will receive.
  const subscribed = await store.subscribedAccounts([...new Set(visits.map((v) => v.message.accountId))], TYPE);
  const wanted = distinct(visits.filter((v) => subscribed.has(v.message.accountId)));
  if (wanted.length === 0) return 0;
  const records = await recordsOf(wanted, companies);
  return store.enqueue(
    wanted.map(({ message, publishedAt }) => ({
      accountId: message.accountId,
      eventId: message.eventId,
      siteId: message.siteId,
      company: message.company,
      type: TYPE,
      payload: JSON.stringify(companyVisitedPayloadOf(message, records.get(domainOf(message) ?? '') ?? null)),
      publishedAt,
    })),
  );
}
