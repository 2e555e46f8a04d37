// An event's receipt: what it did to the playbooks it opts in to, recorded by the batch apply. An
// event whose name no playbook opts in to has no receipt row; while its id is remembered
// (processed_events, 72 h) it is answered as applied with nothing to say. The reads are the
// ReceiptStore's (data/receipt-store.ts).
import { AppError } from '@glimpse/errors';
import { isUuid } from '@glimpse/validation';
import type { UnchangedReason } from './decide-effects.js';

interface PlaybookRef {
  id: string;
  /** Null when the playbook has been deleted since. */
  name: string | null;
}

export interface ReceiptView {
  eventId: string;
  /** The event name; null for an event no playbook opted in to (only its id was kept). */
  event: string | null;
  appliedAt: Date;
  started: PlaybookRef[];
  stopped: PlaybookRef[];
  unchanged: (PlaybookRef & { reason: UnchangedReason })[];
  /** The person has been erased since (their enrollments and effects keep only a hash). */
  personErased: boolean;
}

/** A receipt as the batch apply recorded it. */
export interface StoredReceipt {
  eventName: string;
  at: Date;
  changed: { playbookId: string; action: 'started' | 'stopped' }[];
  unchanged: { playbookId: string; reason: UnchangedReason }[];
}

export interface ReceiptStore {
  receipt(accountId: string, eventId: string): Promise<StoredReceipt | null>;
  /** When the event was applied, while its id is remembered; null otherwise. */
  processedAt(accountId: string, eventId: string): Promise<Date | null>;
  /** The names of the account's playbooks among `ids`, by id (deleted ones are missing). */
  playbookNames(accountId: string, ids: string[]): Promise<Map<string, string>>;
  /** Whether the event's effects name an erased person's stand-in (erased since). */
  personErased(eventId: string): Promise<boolean>;
}

const notFound = (eventId: string) =>
  new AppError(
    'not_found',
    `event ${eventId} is not known in this account: not applied yet (retry in a moment), or an event no playbook opted in to, older than 72 h`,
  );

export async function getReceipt(store: ReceiptStore, accountId: string, eventId: string): Promise<ReceiptView> {
  if (!isUuid(eventId)) throw notFound(eventId);
  const receipt = await store.receipt(accountId, eventId);
  if (!receipt) {
    const processedAt = await store.processedAt(accountId, eventId);
    if (!processedAt) throw notFound(eventId);
    return { eventId, event: null, appliedAt: processedAt, started: [], stopped: [], unchanged: [], personErased: false };
  }
  const { changed, unchanged } = receipt;
  const ids = [...new Set([...changed.map((c) => c.playbookId), ...unchanged.map((u) => u.playbookId)])];
  const [names, personErased] = await Promise.all([store.playbookNames(accountId, ids), store.personErased(eventId)]);
  const ref = (id: string): PlaybookRef => ({ id, name: names.get(id) ?? null });
  return {
    eventId,
    event: receipt.eventName,
    appliedAt: receipt.at,
    started: changed.filter((c) => c.action === 'started').map((c) => ref(c.playbookId)),
    stopped: changed.filter((c) => c.action === 'stopped').map((c) => ref(c.playbookId)),
    unchanged: unchanged.map((u) => ({ ...ref(u.playbookId), reason: u.reason })),
    personErased,
  };
}
