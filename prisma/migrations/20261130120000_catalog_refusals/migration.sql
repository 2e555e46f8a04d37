-- New event names a full catalog did not take (CATALOG_NAMES_PER_ACCOUNT), one row per account, written by the catalog fold (issue 21).
-- CreateTable
CREATE TABLE "playbook"."catalog_refusals" (
    "account_id" UUID NOT NULL,
    "events" BIGINT NOT NULL,
    "last_name" TEXT NOT NULL,
    "first_at" TIMESTAMPTZ(3) NOT NULL,
    "last_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "catalog_refusals_pkey" PRIMARY KEY ("account_id")
);
