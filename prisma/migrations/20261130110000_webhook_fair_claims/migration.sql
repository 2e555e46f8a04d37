-- Webhooks: fair claims. A delivery in flight carries the end of its lease (leased_until), so a
-- claim can count what each endpoint and account has in flight across instances and cap it; the
-- claim walks the endpoints with pending deliveries (webhook_deliveries_pending_idx) instead of
-- taking the globally oldest due rows (status, next_attempt_at), which let one account's backlog
-- fill every slot. Rows claimed before this migration have no lease: they count as not in flight
-- and are due again when their pushed-forward next_attempt_at passes, as before.
-- The endpoints' signing secrets are sealed by the service, not here (the key is in its
-- environment, never in the database): clear whsec_ secrets keep working and are sealed at start.

-- DropIndex
DROP INDEX "webhooks"."webhook_deliveries_status_next_attempt_at_idx";

-- AlterTable
ALTER TABLE "webhooks"."webhook_deliveries" ADD COLUMN     "leased_until" TIMESTAMPTZ(3);

-- CreateIndex
CREATE INDEX "webhook_deliveries_pending_idx" ON "webhooks"."webhook_deliveries"("endpoint_id", "next_attempt_at") WHERE (status = 'pending'::text);

-- CreateIndex
CREATE INDEX "webhook_deliveries_leased_idx" ON "webhooks"."webhook_deliveries"("endpoint_id") WHERE (leased_until IS NOT NULL);
