-- Webhooks: the fair claim (services/webhooks/src/data/claims.ts says what it does) as one function,
-- called in one statement: the advisory lock that serialises claims across instances, then the
-- claim itself, each with its own snapshot (a volatile function's statements see what committed
-- before them, so the counts read after the lock are current). As a PL/pgSQL function its plan is
-- kept per connection (planning the statement took 3 to 4 ms, more than running it: about 1 ms), and
-- the claim is one round trip instead of a transaction of three statements. Bitmap scans are off
-- inside it: each endpoint's due rows must be read in index order until enough pass (an early stop),
-- not all read and sorted (0.7 s instead of 50 ms with 1,000 backlogged endpoints, one of 50,000 rows).
-- Only the webhooks service's role may run it.
CREATE FUNCTION webhooks.claim_webhook_deliveries(p_limit integer, p_lease_ms integer, p_account_cap integer, p_endpoint_cap integer)
RETURNS TABLE (id uuid, endpoint_id uuid, account_id uuid, effect_id uuid, payload text, attempts integer, expires_at timestamptz, url text, secret text, previous_secret text, previous_secret_expires_at timestamptz)
LANGUAGE plpgsql
SET enable_bitmapscan = off
AS $fn$
#variable_conflict use_column
BEGIN
  PERFORM pg_advisory_xact_lock(hashtext('webhook_deliveries'), hashtext('claim'));
  RETURN QUERY
  WITH RECURSIVE pending_endpoints(endpoint_id) AS (
    -- The endpoints with pending deliveries, one index probe each (a loose index scan).
    (SELECT w.endpoint_id FROM webhooks.webhook_deliveries w WHERE w.status = 'pending' ORDER BY w.endpoint_id LIMIT 1)
    UNION ALL
    SELECT (SELECT d.endpoint_id FROM webhooks.webhook_deliveries d WHERE d.status = 'pending' AND d.endpoint_id > p.endpoint_id ORDER BY d.endpoint_id LIMIT 1)
    FROM pending_endpoints p WHERE p.endpoint_id IS NOT NULL
  ),
  -- In flight, across instances: the leases not yet ended.
  leased AS (
    SELECT w.endpoint_id, count(*)::int AS n FROM webhooks.webhook_deliveries w
    WHERE w.leased_until IS NOT NULL AND w.leased_until > now() AND w.status = 'pending'
    GROUP BY w.endpoint_id
  ),
  account_leased AS (
    SELECT e.account_id, sum(l.n)::int AS n FROM leased l JOIN webhooks.webhook_endpoints e ON e.id = l.endpoint_id GROUP BY e.account_id
  ),
  -- Endpoints below their cap, of accounts below theirs.
  open_endpoints AS (
    SELECT e.id, e.account_id, coalesce(l.n, 0) AS endpoint_busy, coalesce(a.n, 0) AS account_busy
    FROM pending_endpoints p
    JOIN webhooks.webhook_endpoints e ON e.id = p.endpoint_id AND e.enabled
    LEFT JOIN leased l ON l.endpoint_id = e.id
    LEFT JOIN account_leased a ON a.account_id = e.account_id
    WHERE coalesce(l.n, 0) < p_endpoint_cap AND coalesce(a.n, 0) < p_account_cap
  ),
  candidates AS (
    SELECT c.id, c.next_attempt_at, c.seq, o.id AS endpoint_id, o.account_id, o.account_busy
    FROM open_endpoints o
    CROSS JOIN LATERAL (
      SELECT d.id, d.next_attempt_at, d.seq FROM webhooks.webhook_deliveries d
      WHERE d.endpoint_id = o.id AND d.status = 'pending' AND d.next_attempt_at <= now()
        AND (d.leased_until IS NULL OR d.leased_until <= now())
        -- Only the person's oldest pending delivery to the endpoint (a per-row index probe;
        -- NOT EXISTS became an anti-join comparing every pair of a backlog's rows).
        AND d.seq = (
          SELECT min(q.seq) FROM webhooks.webhook_deliveries q
          WHERE q.endpoint_id = d.endpoint_id AND q.person_key = d.person_key AND q.status = 'pending')
      ORDER BY d.next_attempt_at
      LIMIT p_endpoint_cap - o.endpoint_busy
    ) c
  ),
  by_endpoint AS (
    SELECT k.*, row_number() OVER (PARTITION BY k.endpoint_id ORDER BY k.next_attempt_at, k.seq) AS turn FROM candidates k
  ),
  -- Round-robin across accounts: a candidate's slot is its account's deliveries in flight with
  -- it (a turn per endpoint); the lowest slots first, then the oldest due.
  ranked AS (
    SELECT b.id, b.next_attempt_at, b.seq, b.account_busy + row_number() OVER (PARTITION BY b.account_id ORDER BY b.turn, b.next_attempt_at, b.seq) AS slot
    FROM by_endpoint b
  ),
  chosen AS (
    SELECT r.id FROM ranked r WHERE r.slot <= p_account_cap ORDER BY r.slot, r.next_attempt_at, r.seq LIMIT p_limit
  )
  UPDATE webhooks.webhook_deliveries d
  SET next_attempt_at = now() + p_lease_ms * interval '1 millisecond', leased_until = now() + p_lease_ms * interval '1 millisecond'
  FROM chosen, webhooks.webhook_endpoints e
  WHERE d.id = chosen.id AND e.id = d.endpoint_id AND d.status = 'pending' AND (d.leased_until IS NULL OR d.leased_until <= now())
  RETURNING d.id, d.endpoint_id, e.account_id, d.effect_id, d.payload, d.attempts, d.expires_at::timestamptz, e.url, e.secret, e.previous_secret, e.previous_secret_expires_at::timestamptz;
END
$fn$;

REVOKE ALL ON FUNCTION webhooks.claim_webhook_deliveries(integer, integer, integer, integer) FROM PUBLIC;
DO $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'glimpse_webhooks') THEN
    CREATE ROLE glimpse_webhooks LOGIN;
  END IF;
  GRANT EXECUTE ON FUNCTION webhooks.claim_webhook_deliveries(integer, integer, integer, integer) TO glimpse_webhooks;
END
$$;
