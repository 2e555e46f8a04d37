-- AlterTable
ALTER TABLE "visitors"."ip_ranges" DROP CONSTRAINT "ip_ranges_pkey",
DROP COLUMN "id";
