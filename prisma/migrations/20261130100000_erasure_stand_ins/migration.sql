-- Erased emails were replaced by sha256:<hex of sha256(accountId:email)>: anyone with the account id
-- could confirm a guessed email against it. New erasures write erased:<HMAC-SHA256 under a
-- per-account key> (createErasedEmail, issue 21). The key cannot be used here (it is derived from
-- the playbook service's PLAYBOOK_ERASURE_KEY, which the database never sees), so each legacy value
-- becomes erased:<64 random hex digits>, one per (account, legacy value): every row of the same
-- erased person keeps the same stand-in (per-person counts hold) and none can be traced back to an
-- email any more. Data only: no schema change.
CREATE TEMP TABLE erased_legacy (account_id uuid NOT NULL, legacy text NOT NULL, stand_in text, PRIMARY KEY (account_id, legacy)) ON COMMIT DROP;

INSERT INTO erased_legacy (account_id, legacy)
SELECT account_id, email FROM playbook.enrollments WHERE email LIKE 'sha256:%'
UNION
SELECT account_id, email FROM playbook.playbook_effects WHERE email LIKE 'sha256:%'
UNION
SELECT e.account_id, m[1]
  FROM webhooks.webhook_deliveries d
  JOIN webhooks.webhook_endpoints e ON e.id = d.endpoint_id
  CROSS JOIN LATERAL regexp_matches(d.payload, '"(sha256:[0-9a-f]{64})"', 'g') AS m
  WHERE strpos(d.payload, '"sha256:') > 0;

-- 256 bits from two random UUIDs (244 random bits), hashed: no relation to any email.
UPDATE erased_legacy SET stand_in = 'erased:' || encode(sha256(convert_to(gen_random_uuid()::text || gen_random_uuid()::text, 'UTF8')), 'hex');

UPDATE playbook.enrollments t SET email = l.stand_in FROM erased_legacy l WHERE t.account_id = l.account_id AND t.email = l.legacy;
UPDATE playbook.playbook_effects t SET email = l.stand_in FROM erased_legacy l WHERE t.account_id = l.account_id AND t.email = l.legacy;

-- A delivery's payload names its legacy values as JSON strings; each is replaced by its account's stand-in.
UPDATE webhooks.webhook_deliveries d SET payload = (
    SELECT string_agg(CASE WHEN part LIKE 'sha256:%' THEN coalesce((SELECT l.stand_in FROM erased_legacy l WHERE l.account_id = e.account_id AND l.legacy = part), part) ELSE part END, '' ORDER BY n)
    FROM regexp_split_to_table(regexp_replace(d.payload, '(sha256:[0-9a-f]{64})', E'\x01\\1\x01', 'g'), E'\x01') WITH ORDINALITY AS s(part, n))
  FROM webhooks.webhook_endpoints e
  WHERE e.id = d.endpoint_id AND strpos(d.payload, '"sha256:') > 0;

-- A delivery's person_key (its per-person order) is hex(sha256(accountId:email)), the legacy value's
-- own digits, or for the stops an erasure sent hex(sha256(accountId:legacy value)): both confirm a
-- guessed email. Both become the key of the stand-in, as the webhooks service computes it.
UPDATE webhooks.webhook_deliveries d SET person_key = encode(sha256(convert_to(l.account_id::text || ':' || l.stand_in, 'UTF8')), 'hex')
  FROM webhooks.webhook_endpoints e, erased_legacy l
  WHERE e.id = d.endpoint_id AND l.account_id = e.account_id
    AND d.person_key IN (substr(l.legacy, 8), encode(sha256(convert_to(l.account_id::text || ':' || l.legacy, 'UTF8')), 'hex'));

-- Tombstones of erasures (kept 72 h so that events queued before an erasure are dropped) under the
-- legacy hash: they could never match a new stand-in, and they confirm emails. Deleted.
DELETE FROM playbook.erasures WHERE email_hash LIKE 'sha256:%';
