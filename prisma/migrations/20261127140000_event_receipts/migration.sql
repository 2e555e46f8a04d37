-- CreateTable
CREATE TABLE "event_receipts" (
    "event_id" UUID NOT NULL,
    "account_id" UUID NOT NULL,
    "event_name" TEXT NOT NULL,
    "changed" JSONB NOT NULL,
    "unchanged" JSONB NOT NULL,
    "at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "event_receipts_pkey" PRIMARY KEY ("event_id")
);
