-- Lookups at data-vendor scale (issue 11): persons stored in the form they are served, credits and
-- usage without a row that every lookup updates, and credits moved to tables the enrichment service owns.

-- Persons: json keeps the text as written (jsonb would reorder keys and be parsed and re-serialised
-- on every read); lz4 makes the TOAST compression of these ~8 KB documents cheap both ways. Rows
-- written before this migration keep jsonb's key order until re-imported, and have no details yet.
ALTER TABLE "persons" ALTER COLUMN "record" SET DATA TYPE JSON USING "record"::json;
ALTER TABLE "persons" ALTER COLUMN "record" SET COMPRESSION lz4;
ALTER TABLE "persons" ADD COLUMN "details" JSON;
ALTER TABLE "persons" ALTER COLUMN "details" SET COMPRESSION lz4;

-- CreateTable
CREATE TABLE "enrichment_credits" (
    "account_id" UUID NOT NULL,
    "credit_limit" INTEGER,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "enrichment_credits_pkey" PRIMARY KEY ("account_id")
);

-- CreateTable
CREATE TABLE "credit_leases" (
    "id" UUID NOT NULL,
    "account_id" UUID NOT NULL,
    "granted" INTEGER NOT NULL,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "credit_leases_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "usage_ledger" (
    "account_id" UUID NOT NULL,
    "day" DATE NOT NULL,
    "seq" BIGSERIAL NOT NULL,
    "lease_id" UUID,

    CONSTRAINT "usage_ledger_pkey" PRIMARY KEY ("account_id","day","seq")
);

-- CreateIndex
CREATE INDEX "credit_leases_account_id_expires_at_idx" ON "credit_leases"("account_id", "expires_at");

-- CreateIndex
CREATE INDEX "usage_ledger_lease_id_idx" ON "usage_ledger"("lease_id");

-- AddForeignKey
ALTER TABLE "enrichment_credits" ADD CONSTRAINT "enrichment_credits_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "credit_leases" ADD CONSTRAINT "credit_leases_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Credits move off the shared accounts row. Credits used need no copy: the old billing statement
-- raised credits_used and usage_days together, so the billed total in usage_days is that number.
INSERT INTO "enrichment_credits" ("account_id", "credit_limit")
SELECT "id", "credit_limit" FROM "accounts" WHERE "credit_limit" IS NOT NULL;

-- AlterTable
ALTER TABLE "accounts" DROP COLUMN "credit_limit",
DROP COLUMN "credits_used";
