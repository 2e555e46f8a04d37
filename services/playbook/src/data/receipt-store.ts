// An event's receipt (domain/receipts.ts's ReceiptStore) as the batch apply recorded it
// (event_receipts), the dedupe's memory of its id (processed_events), and what the effects say.
import type { Db } from '@glimpse/db/playbook';
import { ERASED_EMAIL_LIKE } from '@glimpse/messaging';
import type { ReceiptStore, StoredReceipt } from '../domain/receipts.js';

export function createReceiptStore(db: Db): ReceiptStore {
  return {
    async receipt(accountId, eventId) {
      const row = await db.eventReceipt.findFirst({ where: { eventId, accountId } });
      if (!row) return null;
      return { eventName: row.eventName, at: row.at, changed: row.changed as StoredReceipt['changed'], unchanged: row.unchanged as StoredReceipt['unchanged'] };
    },
    async processedAt(accountId, eventId) {
      const row = await db.processedEvent.findFirst({ where: { eventId, accountId }, select: { processedAt: true } });
      return row?.processedAt ?? null;
    },
    async playbookNames(accountId, ids) {
      const rows = await db.playbook.findMany({ where: { id: { in: ids }, accountId }, select: { id: true, name: true } });
      return new Map(rows.map((p) => [p.id, p.name]));
    },
    async personErased(eventId) {
      const rows = await db.$queryRawUnsafe<{ erased: boolean }[]>(
        `SELECT EXISTS (SELECT 1 FROM playbook_effects WHERE event_id = $1::uuid AND email LIKE $2) AS erased`,
        eventId,
        ERASED_EMAIL_LIKE,
      );
      return rows[0]?.erased ?? false;
    },
  };
}
