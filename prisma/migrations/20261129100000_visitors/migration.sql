-- CreateSchema
CREATE SCHEMA IF NOT EXISTS "visitors";

-- CreateTable
CREATE TABLE "identity"."sites" (
    "id" UUID NOT NULL,
    "account_id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "key" TEXT NOT NULL,
    "origins" TEXT[],
    "track_events" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "sites_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "visitors"."visitor_profiles" (
    "account_id" UUID NOT NULL,
    "id" VARCHAR(24) NOT NULL,
    "site_id" UUID NOT NULL,
    "first_seen" TIMESTAMPTZ(3) NOT NULL,
    "last_seen" TIMESTAMPTZ(3) NOT NULL,
    "page_views" INTEGER NOT NULL DEFAULT 0,
    "sessions" INTEGER NOT NULL DEFAULT 0,
    "engaged_seconds" INTEGER NOT NULL DEFAULT 0,
    "last_pages" JSONB NOT NULL DEFAULT '[]',
    "first_referrer" TEXT,
    "first_utm" JSONB,
    "session_started_at" TIMESTAMPTZ(3),
    "session_last_at" TIMESTAMPTZ(3),
    "session_campaign" TEXT,
    "email" TEXT,
    "identified_method" TEXT,
    "identified_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "visitor_profiles_pkey" PRIMARY KEY ("account_id","id")
);

-- CreateTable
CREATE TABLE "visitors"."visitor_sessions" (
    "account_id" UUID NOT NULL,
    "visitor_id" VARCHAR(24) NOT NULL,
    "number" INTEGER NOT NULL,
    "site_id" UUID NOT NULL,
    "started_at" TIMESTAMPTZ(3) NOT NULL,
    "last_at" TIMESTAMPTZ(3) NOT NULL,
    "page_views" INTEGER NOT NULL DEFAULT 0,
    "landing_path" TEXT,
    "referrer" TEXT,
    "utm_campaign" TEXT,

    CONSTRAINT "visitor_sessions_pkey" PRIMARY KEY ("account_id","visitor_id","number")
);

-- CreateTable
CREATE TABLE "visitors"."identity_links" (
    "id" BIGSERIAL NOT NULL,
    "account_id" UUID NOT NULL,
    "visitor_id" VARCHAR(24) NOT NULL,
    "site_id" UUID NOT NULL,
    "email" TEXT NOT NULL,
    "method" TEXT NOT NULL,
    "at" TIMESTAMPTZ(3) NOT NULL,
    "source_id" TEXT NOT NULL,
    "source_path" TEXT,

    CONSTRAINT "identity_links_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "visitors"."collected_messages" (
    "visitor_id" VARCHAR(24) NOT NULL,
    "id" TEXT NOT NULL,
    "at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "collected_messages_pkey" PRIMARY KEY ("visitor_id","id")
);

-- CreateTable
CREATE TABLE "visitors"."site_hours" (
    "site_id" UUID NOT NULL,
    "hour" TIMESTAMPTZ(3) NOT NULL,
    "account_id" UUID NOT NULL,
    "page_views" INTEGER NOT NULL DEFAULT 0,
    "visitors" INTEGER NOT NULL DEFAULT 0,
    "bots" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "site_hours_pkey" PRIMARY KEY ("site_id","hour")
);

-- CreateIndex
CREATE UNIQUE INDEX "sites_key_key" ON "identity"."sites"("key");

-- CreateIndex
CREATE INDEX "sites_account_id_idx" ON "identity"."sites"("account_id");

-- CreateIndex
CREATE INDEX "visitor_profiles_account_id_last_seen_idx" ON "visitors"."visitor_profiles"("account_id", "last_seen");

-- CreateIndex
CREATE INDEX "visitor_profiles_site_id_last_seen_idx" ON "visitors"."visitor_profiles"("site_id", "last_seen");

-- CreateIndex
CREATE INDEX "visitor_profiles_account_id_email_idx" ON "visitors"."visitor_profiles"("account_id", "email");

-- CreateIndex
CREATE INDEX "identity_links_account_id_email_idx" ON "visitors"."identity_links"("account_id", "email");

-- CreateIndex
CREATE UNIQUE INDEX "identity_links_account_id_visitor_id_source_id_key" ON "visitors"."identity_links"("account_id", "visitor_id", "source_id");

-- CreateIndex
CREATE INDEX "collected_messages_at_idx" ON "visitors"."collected_messages"("at");

-- CreateIndex
CREATE INDEX "site_hours_account_id_idx" ON "visitors"."site_hours"("account_id");

-- AddForeignKey
ALTER TABLE "identity"."sites" ADD CONSTRAINT "sites_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "identity"."accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- The visitors service's role (created here on a development server; CloudNativePG creates it in
-- deploy/), granted its own schema only, now and for later tables, like the other four.
DO $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'glimpse_visitors') THEN
    CREATE ROLE glimpse_visitors LOGIN;
  END IF;
  REVOKE ALL ON SCHEMA "visitors" FROM PUBLIC;
  GRANT USAGE ON SCHEMA "visitors" TO glimpse_visitors;
  GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA "visitors" TO glimpse_visitors;
  GRANT USAGE, SELECT, UPDATE ON ALL SEQUENCES IN SCHEMA "visitors" TO glimpse_visitors;
  ALTER DEFAULT PRIVILEGES IN SCHEMA "visitors" GRANT SELECT, INSERT, UPDATE, DELETE ON TABLES TO glimpse_visitors;
  ALTER DEFAULT PRIVILEGES IN SCHEMA "visitors" GRANT USAGE, SELECT, UPDATE ON SEQUENCES TO glimpse_visitors;
  -- Unqualified names resolve in the schemas a session may use (new sessions of this database).
  EXECUTE format('ALTER DATABASE %I SET search_path TO "$user", public, identity, playbook, enrichment, webhooks, visitors', current_database());
END
$$;
