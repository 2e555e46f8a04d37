-- AlterTable
ALTER TABLE "identity"."sites" ADD COLUMN     "identity_secret" TEXT,
ADD COLUMN     "identity_verification" TEXT NOT NULL DEFAULT 'off',
ADD COLUMN     "new_visitors_per_day" INTEGER,
ADD COLUMN     "previous_identity_secret" TEXT,
ADD COLUMN     "previous_identity_secret_expires_at" TIMESTAMPTZ(3),
ADD COLUMN     "query_keys" TEXT[] DEFAULT ARRAY[]::TEXT[];

-- AlterTable: the dedup of collected messages is keyed with the account. Rows already there (at
-- most a day and a half of ids) take their visitor's account; an id no visitor holds is dropped
-- (its message, redelivered, would find no visitor to count twice).
ALTER TABLE "visitors"."collected_messages" ADD COLUMN "account_id" UUID;
UPDATE "visitors"."collected_messages" m SET "account_id" = p."account_id"
  FROM "visitors"."visitor_profiles" p WHERE p."id" = m."visitor_id";
DELETE FROM "visitors"."collected_messages" WHERE "account_id" IS NULL;
ALTER TABLE "visitors"."collected_messages" DROP CONSTRAINT "collected_messages_pkey",
ALTER COLUMN "account_id" SET NOT NULL,
ADD CONSTRAINT "collected_messages_pkey" PRIMARY KEY ("account_id", "visitor_id", "id");

-- AlterTable
ALTER TABLE "visitors"."identity_links" ADD COLUMN     "verified" BOOLEAN NOT NULL DEFAULT false;

-- AlterTable
ALTER TABLE "visitors"."visitor_profiles" ADD COLUMN     "identified_verified" BOOLEAN;

-- CreateTable
CREATE TABLE "identity"."link_token_revocations" (
    "account_id" UUID NOT NULL,
    "token_id" TEXT NOT NULL,
    "revoked_before" TIMESTAMPTZ(3),
    "revoked_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "link_token_revocations_pkey" PRIMARY KEY ("account_id","token_id")
);

-- CreateTable
CREATE TABLE "enrichment"."billed_persons" (
    "account_id" UUID NOT NULL,
    "period" DATE NOT NULL,
    "person_key" TEXT NOT NULL,
    "billed_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "billed_persons_pkey" PRIMARY KEY ("account_id","period","person_key")
);

-- CreateIndex
CREATE INDEX "link_token_revocations_expires_at_idx" ON "identity"."link_token_revocations"("expires_at");

-- CreateIndex
CREATE INDEX "visitor_profiles_last_seen_idx" ON "visitors"."visitor_profiles"("last_seen");
