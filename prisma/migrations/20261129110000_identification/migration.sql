-- AlterTable
ALTER TABLE "identity"."sites" ADD COLUMN     "capture_forms" BOOLEAN NOT NULL DEFAULT false,
ADD COLUMN     "consent" TEXT NOT NULL DEFAULT 'implied',
ADD COLUMN     "honor_gpc" BOOLEAN NOT NULL DEFAULT true;

-- AlterTable
ALTER TABLE "visitors"."identity_links" ADD COLUMN     "confidence" DOUBLE PRECISION NOT NULL DEFAULT 1;

-- AlterTable
ALTER TABLE "visitors"."visitor_profiles" ADD COLUMN     "company" JSONB,
ADD COLUMN     "company_at" TIMESTAMPTZ(3),
ADD COLUMN     "consent" TEXT NOT NULL DEFAULT 'implied',
ADD COLUMN     "consent_at" TIMESTAMPTZ(3),
ADD COLUMN     "cookieless" BOOLEAN NOT NULL DEFAULT false,
ADD COLUMN     "identified_confidence" DOUBLE PRECISION;

-- CreateTable
CREATE TABLE "visitors"."ip_ranges" (
    "id" BIGSERIAL NOT NULL,
    "range" INET NOT NULL,
    "company_name" TEXT NOT NULL,
    "company_domain" TEXT,

    CONSTRAINT "ip_ranges_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "visitors"."page_rules" (
    "id" UUID NOT NULL,
    "account_id" UUID NOT NULL,
    "pattern" TEXT NOT NULL,
    "event" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "page_rules_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "visitors"."page_rule_firings" (
    "account_id" UUID NOT NULL,
    "visitor_id" VARCHAR(24) NOT NULL,
    "session_number" INTEGER NOT NULL,
    "rule_id" UUID NOT NULL,
    "at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "page_rule_firings_pkey" PRIMARY KEY ("account_id","visitor_id","session_number","rule_id")
);

-- CreateTable
CREATE TABLE "visitors"."visitor_erasures" (
    "account_id" UUID NOT NULL,
    "email_hash" TEXT NOT NULL,
    "erased_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "visitor_erasures_pkey" PRIMARY KEY ("account_id","email_hash")
);

-- CreateIndex
CREATE INDEX "ip_ranges_range_idx" ON "visitors"."ip_ranges" USING GIST ("range" inet_ops);

-- CreateIndex
CREATE INDEX "page_rules_account_id_idx" ON "visitors"."page_rules"("account_id");

-- CreateIndex
CREATE INDEX "visitor_erasures_erased_at_idx" ON "visitors"."visitor_erasures"("erased_at");
