-- AlterTable
ALTER TABLE "playbooks" ADD COLUMN     "reenrollment" TEXT NOT NULL DEFAULT 'when_inactive';
