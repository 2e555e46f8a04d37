// What the playbook service knows of accounts (playbook.account_states), kept from the accounts
// topic. A deletion removes every row of the account from this service's schema in the same
// transaction that records it. Both are idempotent: an event applied twice, or a created after a
// deleted (a redelivery), changes nothing more; a deleted account never comes back.
import type { Db } from '@glimpse/db/playbook';
import type { AccountEventMessage } from '@glimpse/messaging';

/** The tables holding an account's rows, by account_id (playbook_triggers, playbook_exits and enrollments go with playbooks). */
export const ACCOUNT_TABLES = [
  'playbooks',
  'event_names',
  'event_name_deltas',
  'suppressions',
  'processed_events',
  'playbook_effects',
  'event_receipts',
  'erasures',
  'catalog_refusals',
] as const;

const SQL = {
  created: `INSERT INTO account_states (account_id, created_at) VALUES ($1::uuid, $2::timestamptz)
    ON CONFLICT (account_id) DO UPDATE SET created_at = EXCLUDED.created_at`,
  // The first deletion's time stays.
  deleted: `INSERT INTO account_states (account_id, deleted_at) VALUES ($1::uuid, $2::timestamptz)
    ON CONFLICT (account_id) DO UPDATE SET deleted_at = COALESCE(account_states.deleted_at, EXCLUDED.deleted_at)`,
};

export interface AccountEventOutcome {
  /** Rows deleted per table (a deletion only). */
  removed?: Record<(typeof ACCOUNT_TABLES)[number], number>;
}

export async function applyAccountEvent(db: Db, event: AccountEventMessage): Promise<AccountEventOutcome> {
  const accountId = event.accountId.toLowerCase();
  if (event.type === 'account.created') {
    await db.$executeRawUnsafe(SQL.created, accountId, event.at);
    return {};
  }
  return db.$transaction(
    async (tx) => {
      // Recorded first: from its commit on, batches that check account_states drop the account's events.
      await tx.$executeRawUnsafe(SQL.deleted, accountId, event.at);
      const removed = {} as Record<(typeof ACCOUNT_TABLES)[number], number>;
      for (const table of ACCOUNT_TABLES) removed[table] = await tx.$executeRawUnsafe(`DELETE FROM ${table} WHERE account_id = $1::uuid`, accountId);
      return { removed };
    },
    { maxWait: 10_000, timeout: 120_000 },
  );
}
