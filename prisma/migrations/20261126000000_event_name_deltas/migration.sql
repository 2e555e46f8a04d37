-- CreateTable
CREATE TABLE "event_name_deltas" (
    "id" BIGSERIAL NOT NULL,
    "account_id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "first_seen_at" TIMESTAMPTZ(3) NOT NULL,
    "last_seen_at" TIMESTAMPTZ(3) NOT NULL,
    "count" BIGINT NOT NULL,

    CONSTRAINT "event_name_deltas_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "event_name_deltas_account_id_name_idx" ON "event_name_deltas"("account_id", "name");
