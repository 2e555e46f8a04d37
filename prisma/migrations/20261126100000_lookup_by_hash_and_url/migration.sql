-- Lookups by email_sha256 and pronet_url (issue 13): both are identity kinds of the existing index
-- (identities: kind, value → person; its primary key is the lookup's index), so the schema does
-- not change. Imports from now on write them; this indexes the persons imported before, with the
-- same normalization as the service (identifiers.ts): the SHA-256 hex of each normalized email,
-- and the profile URL lower-cased without scheme, "www.", query, fragment or trailing slashes.
INSERT INTO "identities" ("kind", "value", "person_id")
SELECT 'email_sha256', encode(sha256(convert_to("value", 'UTF8')), 'hex'), "person_id"
FROM "identities" WHERE "kind" = 'email'
ON CONFLICT ("kind", "value") DO NOTHING;

INSERT INTO "identities" ("kind", "value", "person_id")
SELECT DISTINCT ON (u.value) 'pronet_url', u.value, u.person_id FROM (
  SELECT p."id" AS person_id,
    regexp_replace(regexp_replace(regexp_replace(regexp_replace(lower(btrim(p."record"->'social'->'pronet'->>'url')),
      '^[a-z][a-z0-9+.-]*://', ''), '^www\.', ''), '[?#].*$', ''), '/+$', '') AS value
  FROM "persons" p
  WHERE p."record"->'social'->'pronet'->>'url' IS NOT NULL
) AS u
WHERE u.value ~ '^[^/\s]+\.[^/\s]+/\S+$'
ORDER BY u.value, u.person_id
ON CONFLICT ("kind", "value") DO NOTHING;
