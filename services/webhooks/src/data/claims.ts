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
// row can never be claimed twice even without it.
import type { Db } from '@glimpse/db';
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
  const [, , rows] = await db.$transaction([
    // Each endpoint's due rows are read in index order until enough pass (an early stop); a bitmap
    // scan would read and sort all of them first (the planner's guess for one endpoint is small,
    // a backlog is not): 0.7 s instead of 50 ms with 1,000 backlogged endpoints, one of 50,000 rows.
    db.$executeRaw`SET LOCAL enable_bitmapscan = off`,
    db.$executeRaw`SELECT pg_advisory_xact_lock(hashtext('webhook_deliveries'), hashtext('claim'))`,
    db.$queryRaw<ClaimedRow[]>`
      WITH RECURSIVE pending_endpoints(endpoint_id) AS (
        -- The endpoints with pending deliveries, one index probe each (a loose index scan).
        (SELECT endpoint_id FROM webhook_deliveries WHERE status = 'pending' ORDER BY endpoint_id LIMIT 1)
        UNION ALL
        SELECT (SELECT d.endpoint_id FROM webhook_deliveries d WHERE d.status = 'pending' AND d.endpoint_id > p.endpoint_id ORDER BY d.endpoint_id LIMIT 1)
        FROM pending_endpoints p WHERE p.endpoint_id IS NOT NULL
      ),
      leased AS (
        SELECT endpoint_id, count(*)::int AS n FROM webhook_deliveries
        WHERE leased_until IS NOT NULL AND leased_until > now() AND status = 'pending'
        GROUP BY endpoint_id
      ),
      account_leased AS (
        SELECT e.account_id, sum(l.n)::int AS n FROM leased l JOIN webhook_endpoints e ON e.id = l.endpoint_id GROUP BY e.account_id
      ),
      open_endpoints AS (
        SELECT e.id, e.account_id, coalesce(l.n, 0) AS endpoint_busy, coalesce(a.n, 0) AS account_busy
        FROM pending_endpoints p
        JOIN webhook_endpoints e ON e.id = p.endpoint_id AND e.enabled
        LEFT JOIN leased l ON l.endpoint_id = e.id
        LEFT JOIN account_leased a ON a.account_id = e.account_id
        WHERE coalesce(l.n, 0) < ${endpointCap} AND coalesce(a.n, 0) < ${accountCap}
      ),
      candidates AS (
        SELECT c.id, c.next_attempt_at, c.seq, o.id AS endpoint_id, o.account_id, o.account_busy
        FROM open_endpoints o
        CROSS JOIN LATERAL (
          SELECT d.id, d.next_attempt_at, d.seq FROM webhook_deliveries d
          WHERE d.endpoint_id = o.id AND d.status = 'pending' AND d.next_attempt_at <= now()
            AND (d.leased_until IS NULL OR d.leased_until <= now())
            -- The person's oldest pending delivery to this endpoint: a per-row probe of
            -- (endpoint_id, person_key, seq); NOT EXISTS became an anti-join that compared
            -- every pair of an endpoint's pending rows (minutes for a 50,000-row backlog).
            AND d.seq = (
              SELECT min(p.seq) FROM webhook_deliveries p
              WHERE p.endpoint_id = d.endpoint_id AND p.person_key = d.person_key AND p.status = 'pending')
          ORDER BY d.next_attempt_at
          LIMIT ${endpointCap} - o.endpoint_busy
        ) c
      ),
      by_endpoint AS (
        SELECT *, row_number() OVER (PARTITION BY endpoint_id ORDER BY next_attempt_at, seq) AS turn FROM candidates
      ),
      ranked AS (
        SELECT id, next_attempt_at, seq, account_busy + row_number() OVER (PARTITION BY account_id ORDER BY turn, next_attempt_at, seq) AS slot
        FROM by_endpoint
      ),
      chosen AS (
        SELECT id FROM ranked WHERE slot <= ${accountCap} ORDER BY slot, next_attempt_at, seq LIMIT ${limit}
      )
      UPDATE webhook_deliveries d
      SET next_attempt_at = now() + ${leaseMs} * interval '1 millisecond', leased_until = now() + ${leaseMs} * interval '1 millisecond'
      FROM chosen, webhook_endpoints e
      WHERE d.id = chosen.id AND e.id = d.endpoint_id AND d.status = 'pending' AND (d.leased_until IS NULL OR d.leased_until <= now())
      RETURNING d.id, d.endpoint_id, e.account_id, d.effect_id, d.payload, d.attempts, d.expires_at, e.url, e.secret, e.previous_secret, e.previous_secret_expires_at`,
  ]);
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
    sealedSecrets: [r.secret, ...(r.previous_secret && r.previous_secret_expires_at && r.previous_secret_expires_at.getTime() > now ? [r.previous_secret] : [])],
  }));
}
