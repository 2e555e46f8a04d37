-- DropIndex
DROP INDEX "visitors"."ip_ranges_range_idx";

-- CreateIndex
CREATE INDEX "ip_ranges_range_idx" ON "visitors"."ip_ranges" USING SPGIST ("range" inet_ops);
