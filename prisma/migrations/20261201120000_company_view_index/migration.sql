-- CreateIndex
CREATE INDEX "visitor_sessions_account_id_started_at_idx" ON "visitors"."visitor_sessions"("account_id", "started_at");
