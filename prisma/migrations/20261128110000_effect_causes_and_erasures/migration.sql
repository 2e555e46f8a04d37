-- AlterTable
ALTER TABLE "playbook"."playbook_effects" ADD COLUMN     "cause" TEXT;

-- CreateTable
CREATE TABLE "playbook"."erasures" (
    "account_id" UUID NOT NULL,
    "email_hash" TEXT NOT NULL,
    "erased_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "erasures_pkey" PRIMARY KEY ("account_id","email_hash")
);

-- CreateIndex
CREATE INDEX "erasures_erased_at_idx" ON "playbook"."erasures"("erased_at");
