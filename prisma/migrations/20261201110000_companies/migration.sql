-- CreateTable
CREATE TABLE "enrichment"."companies" (
    "domain" TEXT NOT NULL,
    "name" TEXT,
    "industry" TEXT,
    "size" TEXT,
    "employees" INTEGER,
    "founded" INTEGER,
    "location" JSONB,
    "profile_url" TEXT,
    "source" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "companies_pkey" PRIMARY KEY ("domain")
);
