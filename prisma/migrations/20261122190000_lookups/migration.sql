-- AlterTable
ALTER TABLE "accounts" ADD COLUMN     "credit_limit" INTEGER,
ADD COLUMN     "credits_used" INTEGER NOT NULL DEFAULT 0;

-- CreateTable
CREATE TABLE "persons" (
    "id" VARCHAR(24) NOT NULL,
    "record" JSONB NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "persons_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "identities" (
    "kind" TEXT NOT NULL,
    "value" TEXT NOT NULL,
    "person_id" VARCHAR(24) NOT NULL,

    CONSTRAINT "identities_pkey" PRIMARY KEY ("kind","value")
);

-- CreateTable
CREATE TABLE "visitors" (
    "account_id" UUID NOT NULL,
    "id" VARCHAR(24) NOT NULL,
    "person_id" VARCHAR(24) NOT NULL,
    "page_views" JSONB,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "visitors_pkey" PRIMARY KEY ("account_id","id")
);

-- CreateTable
CREATE TABLE "usage_days" (
    "account_id" UUID NOT NULL,
    "day" DATE NOT NULL,
    "identity_matches" INTEGER NOT NULL DEFAULT 0,
    "enriched_records" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "usage_days_pkey" PRIMARY KEY ("account_id","day")
);

-- CreateIndex
CREATE INDEX "identities_person_id_idx" ON "identities"("person_id");

-- CreateIndex
CREATE INDEX "visitors_person_id_idx" ON "visitors"("person_id");

-- AddForeignKey
ALTER TABLE "identities" ADD CONSTRAINT "identities_person_id_fkey" FOREIGN KEY ("person_id") REFERENCES "persons"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "visitors" ADD CONSTRAINT "visitors_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "visitors" ADD CONSTRAINT "visitors_person_id_fkey" FOREIGN KEY ("person_id") REFERENCES "persons"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "usage_days" ADD CONSTRAINT "usage_days_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;
