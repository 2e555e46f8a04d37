// Claiming due deliveries fairly. A claim leases each row it takes (leased_until, and next_attempt_at
// pushed to the same time), so an instance that dies mid-attempt leaves the row due again when the
// lease ends (at least once). What is leased is what is in flight, across every instance: the claim
// counts it per endpoint and per account and takes no more than
//   - WEBHOOKS_ENDPOINT_CONCURRENCY in flight to one endpoint, and
//   - WEBHOOKS_ACCOUNT_CONCURRENCY in flight for one account,
// so an endpoint that hangs holds at most its endpoint cap of the slots, an account at most its
// account cap. Among what may be taken, the order is round-robin across accounts: a candidate's rank
// is how many deliveries its account would have in flight with it (those already in flight, plus
// its place among the account's candidates, taken a turn per endpoint), then the oldest due first.
// An account with nothing in flight therefore goes before every account that has something in
// flight, whatever their backlogs: one account's thousands of due deliveries cannot hold back
// another's first. Per endpoint and person, only the oldest pending delivery is ever due (a later
// effect for the same person never overtakes an earlier one), leased or not.
//
// Claims are serialised across instances by a transaction-scoped advisory lock (the counts they
// read stay true while they take rows); the UPDATE also re-checks that a row is not leased, so a
// row can never be claimed twice even without it. The claim is a SQL function (a migration's):
// planning the statement cost more than running it, and a function's plan is kept per connection.
import type { Db } from '@glimpse/db/webhooks';
import type { ClaimedDelivery } from './delivery-repository.js';

export interface ClaimLimits {
  /** Deliveries to take now (the instance's free slots). */
  limit: number;
  /** How long a claim holds a delivery before it is taken for lost. */
  leaseMs: number;
  /** In flight at once for one account, across instances. */
  accountCap: number;
  /** In flight at once to one endpoint, across instances. */
  endpointCap: number;
}

interface ClaimedRow {
  id: string;
  endpoint_id: string;
  account_id: string;
  effect_id: string;
  payload: string;
  attempts: number;
  expires_at: Date;
  url: string;
  secret: string;
  previous_secret: string | null;
  previous_secret_expires_at: Date | null;
}

export async function claimDue(db: Db, { limit, leaseMs, accountCap, endpointCap }: ClaimLimits): Promise<ClaimedDelivery[]> {
  if (limit <= 0) return [];
  // The statement is the function of migration 20261130110100_webhook_claim_function (the lock,
  // then the claim; its plan kept per connection, one round trip).
  const rows = await db.$queryRaw<ClaimedRow[]>`
    SELECT * FROM webhooks.claim_webhook_deliveries(${limit}::int, ${leaseMs}::int, ${accountCap}::int, ${endpointCap}::int)`;
  const now = Date.now();
  return rows.map((r) => ({
    id: r.id,
    endpointId: r.endpoint_id,
    accountId: r.account_id,
    effectId: r.effect_id,
    payload: r.payload,
    attempts: r.attempts,
    expiresAt: r.expires_at,
    url: r.url,
    sealedSecrets: [
      r.secret,
      ...(r.previous_secret && r.previous_secret_expires_at && r.previous_secret_expires_at.getTime() > now ? [r.previous_secret] : []),
    ],
  }));
}
