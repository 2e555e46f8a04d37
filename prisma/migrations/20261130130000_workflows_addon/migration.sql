-- The workflows add-on of an account (events, event tokens, playbooks, page rules). The accounts
-- that exist now keep working: they get it (the column is added with DEFAULT true, which fills
-- every existing row without a rewrite); from then on a new account has it only when the operator
-- grants it (`glimpse account create --workflows` or `glimpse account workflows --account ID --on`).
ALTER TABLE "identity"."accounts" ADD COLUMN "workflows" BOOLEAN NOT NULL DEFAULT true;
ALTER TABLE "identity"."accounts" ALTER COLUMN "workflows" SET DEFAULT false;
