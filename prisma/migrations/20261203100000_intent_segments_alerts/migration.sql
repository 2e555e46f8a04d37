-- AlterTable
ALTER TABLE "visitors"."page_rules" ADD COLUMN     "weight" DOUBLE PRECISION NOT NULL DEFAULT 0,
ALTER COLUMN "event" DROP NOT NULL;

-- AlterTable
ALTER TABLE "visitors"."visitor_profiles" ADD COLUMN     "intent_at" TIMESTAMPTZ(3),
ADD COLUMN     "intent_contributions" JSONB NOT NULL DEFAULT '[]',
ADD COLUMN     "intent_rank" DOUBLE PRECISION,
ADD COLUMN     "intent_raw" DOUBLE PRECISION NOT NULL DEFAULT 0;

-- AlterTable
ALTER TABLE "webhooks"."webhook_endpoints" ADD COLUMN     "kind" TEXT NOT NULL DEFAULT 'webhook';

-- CreateTable
CREATE TABLE "visitors"."intent_settings" (
    "account_id" UUID NOT NULL,
    "half_life_days" DOUBLE PRECISION NOT NULL DEFAULT 7,
    "page_view_weight" DOUBLE PRECISION NOT NULL DEFAULT 1,
    "session_weight" DOUBLE PRECISION NOT NULL DEFAULT 3,
    "engaged_minute_weight" DOUBLE PRECISION NOT NULL DEFAULT 1,
    "event_weights" JSONB NOT NULL DEFAULT '{}',
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "rescored_at" TIMESTAMPTZ(3),

    CONSTRAINT "intent_settings_pkey" PRIMARY KEY ("account_id")
);

-- CreateTable
CREATE TABLE "visitors"."alert_settings" (
    "account_id" UUID NOT NULL,
    "time_zone" TEXT NOT NULL DEFAULT 'UTC',
    "digest_hour" INTEGER NOT NULL DEFAULT 9,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "alert_settings_pkey" PRIMARY KEY ("account_id")
);

-- CreateTable
CREATE TABLE "visitors"."segments" (
    "id" UUID NOT NULL,
    "account_id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "filter" JSONB NOT NULL,
    "alert_window_hours" INTEGER NOT NULL DEFAULT 24,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "evaluated_at" TIMESTAMPTZ(3),
    "digest_sent_on" DATE,

    CONSTRAINT "segments_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "visitors"."segment_members" (
    "segment_id" UUID NOT NULL,
    "member" TEXT NOT NULL,
    "account_id" UUID NOT NULL,
    "entered_at" TIMESTAMPTZ(3) NOT NULL,
    "seen_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "segment_members_pkey" PRIMARY KEY ("segment_id","member")
);

-- CreateTable
CREATE TABLE "visitors"."segment_entries" (
    "segment_id" UUID NOT NULL,
    "member" TEXT NOT NULL,
    "window_start" TIMESTAMPTZ(3) NOT NULL,
    "account_id" UUID NOT NULL,
    "at" TIMESTAMPTZ(3) NOT NULL,
    "message" JSONB NOT NULL,
    "published_at" TIMESTAMPTZ(3),

    CONSTRAINT "segment_entries_pkey" PRIMARY KEY ("segment_id","member","window_start")
);

-- CreateIndex
CREATE UNIQUE INDEX "segments_account_id_name_key" ON "visitors"."segments"("account_id", "name");

-- CreateIndex
CREATE INDEX "segment_members_segment_id_entered_at_idx" ON "visitors"."segment_members"("segment_id", "entered_at");

-- CreateIndex
CREATE INDEX "segment_entries_published_at_at_idx" ON "visitors"."segment_entries"("published_at", "at");

-- CreateIndex
CREATE INDEX "visitor_profiles_account_id_intent_rank_idx" ON "visitors"."visitor_profiles"("account_id", "intent_rank" DESC);

-- AddForeignKey
ALTER TABLE "visitors"."segment_members" ADD CONSTRAINT "segment_members_segment_id_fkey" FOREIGN KEY ("segment_id") REFERENCES "visitors"."segments"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "visitors"."segment_entries" ADD CONSTRAINT "segment_entries_segment_id_fkey" FOREIGN KEY ("segment_id") REFERENCES "visitors"."segments"("id") ON DELETE CASCADE ON UPDATE CASCADE;
