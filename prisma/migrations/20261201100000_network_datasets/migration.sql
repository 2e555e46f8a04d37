-- DropIndex
DROP INDEX "visitors"."ip_ranges_range_idx";

-- AlterTable: the ranges of before (hand-made company lists, CIDRs) become the dataset "companies",
-- each CIDR its first and last address, typed business (the file named companies).
ALTER TABLE "visitors"."ip_ranges" ADD COLUMN     "asn" BIGINT,
ADD COLUMN     "dataset" TEXT,
ADD COLUMN     "domain" TEXT,
ADD COLUMN     "first" INET,
ADD COLUMN     "last" INET,
ADD COLUMN     "name" TEXT,
ADD COLUMN     "type" TEXT,
ADD COLUMN     "version" BIGINT;

UPDATE "visitors"."ip_ranges" SET "dataset" = 'companies', "version" = 1, "first" = network("range"), "last" = broadcast("range"),
  "name" = "company_name", "domain" = "company_domain", "type" = 'business';

ALTER TABLE "visitors"."ip_ranges" DROP COLUMN "company_domain",
DROP COLUMN "company_name",
DROP COLUMN "range",
ALTER COLUMN "dataset" SET NOT NULL,
ALTER COLUMN "first" SET NOT NULL,
ALTER COLUMN "last" SET NOT NULL,
ALTER COLUMN "version" SET NOT NULL;

-- AlterTable
ALTER TABLE "visitors"."visitor_profiles" ADD COLUMN     "company_key" TEXT,
ADD COLUMN     "location" JSONB,
ADD COLUMN     "network" JSONB;

-- CreateTable
CREATE TABLE "visitors"."ip_datasets" (
    "name" TEXT NOT NULL,
    "kind" TEXT NOT NULL DEFAULT 'ranges',
    "format" TEXT NOT NULL,
    "precedence" INTEGER NOT NULL DEFAULT 0,
    "version" BIGINT NOT NULL,
    "size" BIGINT NOT NULL DEFAULT 0,
    "imported_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "ip_datasets_pkey" PRIMARY KEY ("name")
);

INSERT INTO "visitors"."ip_datasets" ("name", "kind", "format", "precedence", "version", "size")
  SELECT 'companies', 'ranges', 'ndjson', 100, 1, count(*) FROM "visitors"."ip_ranges" HAVING count(*) > 0;

-- CreateTable
CREATE TABLE "visitors"."ip_dataset_files" (
    "dataset" TEXT NOT NULL,
    "version" BIGINT NOT NULL,
    "seq" INTEGER NOT NULL,
    "bytes" BYTEA NOT NULL,

    CONSTRAINT "ip_dataset_files_pkey" PRIMARY KEY ("dataset","version","seq")
);

-- CreateTable
CREATE TABLE "visitors"."network_type_overrides" (
    "kind" TEXT NOT NULL,
    "value" TEXT NOT NULL,
    "type" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "network_type_overrides_pkey" PRIMARY KEY ("kind","value")
);

-- CreateTable
CREATE TABLE "visitors"."company_visits" (
    "account_id" UUID NOT NULL,
    "site_id" UUID NOT NULL,
    "company" TEXT NOT NULL,
    "window_start" TIMESTAMPTZ(3) NOT NULL,
    "visitor_id" VARCHAR(24) NOT NULL,
    "at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "company_visits_pkey" PRIMARY KEY ("account_id","site_id","company","window_start")
);

-- CreateIndex
CREATE INDEX "company_visits_window_start_idx" ON "visitors"."company_visits"("window_start");

-- CreateIndex
CREATE INDEX "ip_ranges_dataset_version_idx" ON "visitors"."ip_ranges"("dataset", "version");

-- CreateIndex
CREATE INDEX "visitor_profiles_account_id_company_key_last_seen_idx" ON "visitors"."visitor_profiles"("account_id", "company_key", "last_seen");
