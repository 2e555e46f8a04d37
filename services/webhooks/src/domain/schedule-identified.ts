// A visitor identified: one visitor.identified delivery per enabled endpoint of the account that
// subscribes to it, carrying the person's details as enrichment knows them now. Scheduled like an
// effect (same schedule, same signing and retries); the identification's eventId is the delivery's
// webhook-id, so a redelivered message adds nothing.
import type { VisitorIdentifiedMessage } from '@glimpse/messaging';
import { identifiedPayloadOf, type PersonDetails } from './identified-payload.js';

const TYPE = 'visitor.identified';

export interface IdentifiedDeliveryStore {
  hasSubscribers(accountId: string, type: typeof TYPE): Promise<boolean>;
  /** Schedules the delivery for each subscribed endpoint without it yet; returns how many were added. */
  enqueue(input: { accountId: string; eventId: string; email: string; type: typeof TYPE; payload: string }): Promise<number>;
}

export interface PersonDirectory {
  /**
   * The person's api.md §2.1 fields, billed to the account (once per person per month), or null when nobody
   * has the email or the account has no credits left. Throws when it cannot tell (retried).
   */
  details(accountId: string, email: string): Promise<PersonDetails | null>;
}

export async function scheduleIdentified(
  message: VisitorIdentifiedMessage,
  { store, persons }: { store: IdentifiedDeliveryStore; persons: PersonDirectory },
): Promise<number> {
  // Most accounts subscribe to nothing: enrichment is asked only when someone will receive the answer.
  if (!(await store.hasSubscribers(message.accountId, TYPE))) return 0;
  const details = (await persons.details(message.accountId, message.email)) ?? {};
  return store.enqueue({
    accountId: message.accountId,
    eventId: message.eventId,
    email: message.email,
    type: TYPE,
    payload: JSON.stringify(identifiedPayloadOf(message, details)),
  });
}
