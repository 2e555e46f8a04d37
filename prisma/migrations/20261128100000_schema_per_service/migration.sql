-- A schema per service, each used only by that service's role; the role running the migrations owns
-- them all. Written by hand (the engine would drop and recreate the tables): the tables move with
-- their rows, indexes, constraints and sequences (ALTER TABLE … SET SCHEMA), the foreign keys that
-- crossed to accounts are dropped (an account's deletion now reaches the other services as an event
-- on the `accounts` topic), and each role gets exactly its schema. `npm run migration:check` proves
-- the result is prisma/schema.prisma.

CREATE SCHEMA IF NOT EXISTS "identity";
CREATE SCHEMA IF NOT EXISTS "playbook";
CREATE SCHEMA IF NOT EXISTS "enrichment";
CREATE SCHEMA IF NOT EXISTS "webhooks";

-- Foreign keys that crossed from a service's table to accounts.
ALTER TABLE "playbooks" DROP CONSTRAINT "playbooks_account_id_fkey";
ALTER TABLE "event_names" DROP CONSTRAINT "event_names_account_id_fkey";
ALTER TABLE "suppressions" DROP CONSTRAINT "suppressions_account_id_fkey";
ALTER TABLE "visitors" DROP CONSTRAINT "visitors_account_id_fkey";
ALTER TABLE "usage_days" DROP CONSTRAINT "usage_days_account_id_fkey";
ALTER TABLE "enrichment_credits" DROP CONSTRAINT "enrichment_credits_account_id_fkey";
ALTER TABLE "credit_leases" DROP CONSTRAINT "credit_leases_account_id_fkey";
ALTER TABLE "webhook_endpoints" DROP CONSTRAINT "webhook_endpoints_account_id_fkey";

-- identity: the gateway's accounts and credentials.
ALTER TABLE "accounts" SET SCHEMA "identity";
ALTER TABLE "event_tokens" SET SCHEMA "identity";
ALTER TABLE "api_keys" SET SCHEMA "identity";

-- playbook: playbooks, enrollments, effects, the catalog, receipts, suppressions.
ALTER TABLE "playbooks" SET SCHEMA "playbook";
ALTER TABLE "playbook_triggers" SET SCHEMA "playbook";
ALTER TABLE "playbook_exits" SET SCHEMA "playbook";
ALTER TABLE "enrollments" SET SCHEMA "playbook";
ALTER TABLE "event_names" SET SCHEMA "playbook";
ALTER TABLE "event_name_deltas" SET SCHEMA "playbook";
ALTER TABLE "suppressions" SET SCHEMA "playbook";
ALTER TABLE "processed_events" SET SCHEMA "playbook";
ALTER TABLE "playbook_effects" SET SCHEMA "playbook";
ALTER TABLE "event_receipts" SET SCHEMA "playbook";

-- enrichment: persons, identities, visitors, usage, credits.
ALTER TABLE "persons" SET SCHEMA "enrichment";
ALTER TABLE "identities" SET SCHEMA "enrichment";
ALTER TABLE "visitors" SET SCHEMA "enrichment";
ALTER TABLE "usage_days" SET SCHEMA "enrichment";
ALTER TABLE "usage_ledger" SET SCHEMA "enrichment";
ALTER TABLE "enrichment_credits" SET SCHEMA "enrichment";
ALTER TABLE "credit_leases" SET SCHEMA "enrichment";

-- webhooks: endpoints, deliveries, attempts.
ALTER TABLE "webhook_endpoints" SET SCHEMA "webhooks";
ALTER TABLE "webhook_deliveries" SET SCHEMA "webhooks";
ALTER TABLE "webhook_attempts" SET SCHEMA "webhooks";

-- The outbox of account events (identity) and what the playbook service knows of accounts.
CREATE TABLE "identity"."account_events" (
    "seq" BIGSERIAL NOT NULL,
    "account_id" UUID NOT NULL,
    "type" TEXT NOT NULL,
    "at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "published_at" TIMESTAMPTZ(3),

    CONSTRAINT "account_events_pkey" PRIMARY KEY ("seq")
);
CREATE INDEX "account_events_published_at_seq_idx" ON "identity"."account_events"("published_at", "seq");

CREATE TABLE "playbook"."account_states" (
    "account_id" UUID NOT NULL,
    "created_at" TIMESTAMPTZ(3),
    "deleted_at" TIMESTAMPTZ(3),

    CONSTRAINT "account_states_pkey" PRIMARY KEY ("account_id")
);

-- Accounts that existed before this migration are known to the playbook service already.
INSERT INTO "playbook"."account_states" ("account_id", "created_at")
SELECT "id", "created_at" FROM "identity"."accounts";

-- Unqualified names resolve in the schemas a session may use (a role without USAGE on a schema
-- skips it): each service's own statements need no schema prefix, and the tables' names are
-- unique across the schemas. Applies to new sessions of this database.
DO $$
BEGIN
  EXECUTE format('ALTER DATABASE %I SET search_path TO "$user", public, identity, playbook, enrichment, webhooks', current_database());
END
$$;

-- One role per service. Where the platform manages roles (deploy/: CloudNativePG creates them with
-- their passwords before the migration Job runs) they exist already; on a development server they
-- are created here, able to log in but with no password (local trust authentication only).
DO $$
DECLARE
  r TEXT;
BEGIN
  FOREACH r IN ARRAY ARRAY['glimpse_gateway', 'glimpse_playbook', 'glimpse_enrichment', 'glimpse_webhooks'] LOOP
    IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = r) THEN
      EXECUTE format('CREATE ROLE %I LOGIN', r);
    END IF;
  END LOOP;
END
$$;

-- Each role: its own schema's tables and sequences, now and later (tables later migrations create
-- are granted by default privileges of the migration role), and nothing else.
DO $$
DECLARE
  grant_pair TEXT[];
  pairs TEXT[] := ARRAY[
    ARRAY['identity', 'glimpse_gateway'],
    ARRAY['playbook', 'glimpse_playbook'],
    ARRAY['enrichment', 'glimpse_enrichment'],
    ARRAY['webhooks', 'glimpse_webhooks']
  ];
BEGIN
  FOREACH grant_pair SLICE 1 IN ARRAY pairs LOOP
    EXECUTE format('REVOKE ALL ON SCHEMA %I FROM PUBLIC', grant_pair[1]);
    EXECUTE format('GRANT USAGE ON SCHEMA %I TO %I', grant_pair[1], grant_pair[2]);
    EXECUTE format('GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA %I TO %I', grant_pair[1], grant_pair[2]);
    EXECUTE format('GRANT USAGE, SELECT, UPDATE ON ALL SEQUENCES IN SCHEMA %I TO %I', grant_pair[1], grant_pair[2]);
    EXECUTE format('ALTER DEFAULT PRIVILEGES IN SCHEMA %I GRANT SELECT, INSERT, UPDATE, DELETE ON TABLES TO %I', grant_pair[1], grant_pair[2]);
    EXECUTE format('ALTER DEFAULT PRIVILEGES IN SCHEMA %I GRANT USAGE, SELECT, UPDATE ON SEQUENCES TO %I', grant_pair[1], grant_pair[2]);
  END LOOP;
  -- The group role of the earlier deployment (read and write on every table of public) loses it.
  IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'glimpse_app') THEN
    EXECUTE 'REVOKE ALL ON ALL TABLES IN SCHEMA public FROM glimpse_app';
    EXECUTE 'REVOKE ALL ON ALL SEQUENCES IN SCHEMA public FROM glimpse_app';
  END IF;
END
$$;
