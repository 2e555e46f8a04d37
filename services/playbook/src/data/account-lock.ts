// The per-account lock that makes a cap hold when creations race: a creation takes the account's
// transaction-scoped advisory lock for its kind, counts and inserts in that transaction, so
// concurrent creations of one account count one after another (another account, or another kind,
// never waits).
import type { Tx } from '@glimpse/db/playbook';

/** Holds the account's lock for `kind` until the transaction ends. */
export async function lockAccountFor(tx: Pick<Tx, '$executeRawUnsafe'>, kind: 'playbooks' | 'suppressions', accountId: string): Promise<void> {
  await tx.$executeRawUnsafe(`SELECT pg_advisory_xact_lock(hashtextextended($1::text || ':' || $2::text, 0))`, `playbook.${kind}`, accountId);
}
