-- CreateTable
CREATE TABLE "accounts" (
    "id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "accounts_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "event_tokens" (
    "id" UUID NOT NULL,
    "account_id" UUID NOT NULL,
    "prefix" TEXT NOT NULL,
    "hash" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "last_used_at" TIMESTAMPTZ(3),
    "revoked_at" TIMESTAMPTZ(3),

    CONSTRAINT "event_tokens_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "api_keys" (
    "id" UUID NOT NULL,
    "account_id" UUID NOT NULL,
    "prefix" TEXT NOT NULL,
    "hash" TEXT NOT NULL,
    "scopes" TEXT[],
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "last_used_at" TIMESTAMPTZ(3),
    "revoked_at" TIMESTAMPTZ(3),

    CONSTRAINT "api_keys_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "playbooks" (
    "id" UUID NOT NULL,
    "account_id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "playbooks_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "playbook_triggers" (
    "playbook_id" UUID NOT NULL,
    "account_id" UUID NOT NULL,
    "event_name" TEXT NOT NULL,

    CONSTRAINT "playbook_triggers_pkey" PRIMARY KEY ("playbook_id","event_name")
);

-- CreateTable
CREATE TABLE "playbook_exits" (
    "playbook_id" UUID NOT NULL,
    "account_id" UUID NOT NULL,
    "event_name" TEXT NOT NULL,

    CONSTRAINT "playbook_exits_pkey" PRIMARY KEY ("playbook_id","event_name")
);

-- CreateTable
CREATE TABLE "enrollments" (
    "id" UUID NOT NULL,
    "playbook_id" UUID NOT NULL,
    "account_id" UUID NOT NULL,
    "email" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "started_at" TIMESTAMPTZ(3) NOT NULL,
    "started_by" TEXT NOT NULL,
    "start_event_id" UUID NOT NULL,
    "stopped_at" TIMESTAMPTZ(3),
    "stopped_by" TEXT,
    "stop_event_id" UUID,

    CONSTRAINT "enrollments_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "enrollments_status_check" CHECK ("status" IN ('active', 'stopped'))
);

-- CreateTable
CREATE TABLE "event_names" (
    "account_id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "first_seen_at" TIMESTAMPTZ(3) NOT NULL,
    "last_seen_at" TIMESTAMPTZ(3) NOT NULL,
    "count" BIGINT NOT NULL,

    CONSTRAINT "event_names_pkey" PRIMARY KEY ("account_id","name")
);

-- CreateTable
CREATE TABLE "processed_events" (
    "event_id" UUID NOT NULL,
    "account_id" UUID NOT NULL,
    "processed_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "processed_events_pkey" PRIMARY KEY ("event_id")
);

-- CreateTable
CREATE TABLE "playbook_effects" (
    "id" UUID NOT NULL,
    "event_id" UUID NOT NULL,
    "account_id" UUID NOT NULL,
    "playbook_id" UUID NOT NULL,
    "email" TEXT NOT NULL,
    "action" TEXT NOT NULL,
    "event_name" TEXT NOT NULL,
    "at" TIMESTAMPTZ(3) NOT NULL,
    "published_at" TIMESTAMPTZ(3),

    CONSTRAINT "playbook_effects_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "playbook_effects_action_check" CHECK ("action" IN ('started', 'stopped'))
);

-- CreateIndex
CREATE UNIQUE INDEX "event_tokens_hash_key" ON "event_tokens"("hash");

-- CreateIndex
CREATE INDEX "event_tokens_account_id_idx" ON "event_tokens"("account_id");

-- CreateIndex
CREATE UNIQUE INDEX "api_keys_hash_key" ON "api_keys"("hash");

-- CreateIndex
CREATE INDEX "api_keys_account_id_idx" ON "api_keys"("account_id");

-- CreateIndex
CREATE INDEX "playbooks_account_id_idx" ON "playbooks"("account_id");

-- CreateIndex
CREATE INDEX "playbook_triggers_account_id_event_name_idx" ON "playbook_triggers"("account_id", "event_name");

-- CreateIndex
CREATE INDEX "playbook_exits_account_id_event_name_idx" ON "playbook_exits"("account_id", "event_name");

-- CreateIndex
CREATE INDEX "enrollments_account_id_email_status_idx" ON "enrollments"("account_id", "email", "status");

-- CreateIndex
CREATE INDEX "enrollments_playbook_id_status_started_at_idx" ON "enrollments"("playbook_id", "status", "started_at");

-- One active enrollment per playbook and person (not expressible in the Prisma schema).
CREATE UNIQUE INDEX "enrollments_one_active_key" ON "enrollments"("playbook_id", "email") WHERE "status" = 'active';

-- CreateIndex
CREATE INDEX "processed_events_processed_at_idx" ON "processed_events"("processed_at");

-- CreateIndex
CREATE INDEX "playbook_effects_event_id_idx" ON "playbook_effects"("event_id");

-- CreateIndex
CREATE INDEX "playbook_effects_published_at_at_idx" ON "playbook_effects"("published_at", "at");

-- AddForeignKey
ALTER TABLE "event_tokens" ADD CONSTRAINT "event_tokens_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "playbooks" ADD CONSTRAINT "playbooks_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "playbook_triggers" ADD CONSTRAINT "playbook_triggers_playbook_id_fkey" FOREIGN KEY ("playbook_id") REFERENCES "playbooks"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "playbook_exits" ADD CONSTRAINT "playbook_exits_playbook_id_fkey" FOREIGN KEY ("playbook_id") REFERENCES "playbooks"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "enrollments" ADD CONSTRAINT "enrollments_playbook_id_fkey" FOREIGN KEY ("playbook_id") REFERENCES "playbooks"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "event_names" ADD CONSTRAINT "event_names_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;
