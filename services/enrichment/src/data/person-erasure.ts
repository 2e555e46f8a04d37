// An account's erasure of a person (DELETE /account/persons/{email} at the gateway), as far as the
// enrichment schema holds the account's data: its imported visitors. Persons and identities are the
// operator's dataset, read by every account: one account cannot delete them (see
// docs/decisions/erasure.md).
import type { Db } from '@glimpse/db/enrichment';
import { ERASED_EMAIL_PATTERN } from '@glimpse/messaging';

export interface PersonErasure {
  /** The account's visitors matched to the person (by any of the person's emails or phones). */
  deletedVisitors: number;
  /** The account's other visitors whose page views named the email: the email became the stand-in. */
  hashedVisitors: number;
  /** Every email of the person (the erased one first; just it when no person has it): the gateway erases the visitors linked by each. */
  emails: string[];
}

/** The email as a case-insensitive regular expression of itself (every metacharacter escaped): no quantifier, so linear. */
function literalPattern(email: string): string {
  return email.replace(/[.*+?^${}()|[\]\\-]/g, '\\$&');
}

/**
 * In one statement: the account's visitors matched to the person whose email identity this is are
 * deleted; in the account's other visitors' page views (kept as imported), the email, in any case,
 * becomes `replacement` (the playbook service's keyed stand-in). Idempotent: a second run finds
 * nothing. Uses the visitors' (account_id, id) key for the account's rows: a scan of one account's
 * visitors, for a rare operation.
 */
export async function erasePersonOfAccount(db: Db, accountId: string, email: string, replacement: string): Promise<PersonErasure> {
  if (!ERASED_EMAIL_PATTERN.test(replacement)) throw new Error('not an erased email stand-in');
  const rows = await db.$queryRawUnsafe<{ deleted: number; hashed: number; emails: string[] | null }[]>(
    `WITH person AS (SELECT person_id FROM identities WHERE kind = 'email' AND value = $2),
     d AS (DELETE FROM visitors WHERE account_id = $1::uuid AND person_id IN (SELECT person_id FROM person) RETURNING 1),
     h AS (UPDATE visitors SET page_views = regexp_replace(page_views::text, $3, $4, 'gi')::jsonb, updated_at = now()
       WHERE account_id = $1::uuid AND page_views IS NOT NULL AND strpos(lower(page_views::text), $2) > 0
         AND person_id NOT IN (SELECT person_id FROM person)
       RETURNING 1)
     SELECT (SELECT count(*) FROM d)::int AS deleted, (SELECT count(*) FROM h)::int AS hashed,
       (SELECT array_agg(value ORDER BY value) FROM identities WHERE kind = 'email' AND person_id IN (SELECT person_id FROM person)) AS emails`,
    accountId,
    email,
    literalPattern(email),
    replacement,
  );
  const others = (rows[0]?.emails ?? []).filter((e) => e !== email);
  return { deletedVisitors: rows[0]?.deleted ?? 0, hashedVisitors: rows[0]?.hashed ?? 0, emails: [email, ...others] };
}
