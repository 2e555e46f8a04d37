// An event's receipt: what it did to the playbooks it opts in to, recorded by the batch apply. An
// event whose name no playbook opts in to has no receipt row; while its id is remembered
// (processed_events, 72 h) it is answered as applied with nothing to say.
import { ERASED_EMAIL_LIKE } from '@glimpse/messaging';
import type { Db } from '@glimpse/db';
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

const notFound = (eventId: string) =>
  new AppError('not_found', `event ${eventId} is not known in this account: not applied yet (retry in a moment), or an event no playbook opted in to, older than 72 h`);

export async function getReceipt(db: Db, accountId: string, eventId: string): Promise<ReceiptView> {
  if (!isUuid(eventId)) throw notFound(eventId);
  const receipt = await db.eventReceipt.findFirst({ where: { eventId, accountId } });
  if (!receipt) {
    const processed = await db.processedEvent.findFirst({ where: { eventId, accountId }, select: { processedAt: true } });
    if (!processed) throw notFound(eventId);
    return { eventId, event: null, appliedAt: processed.processedAt, started: [], stopped: [], unchanged: [], personErased: false };
  }
  const changed = receipt.changed as { playbookId: string; action: 'started' | 'stopped' }[];
  const unchanged = receipt.unchanged as { playbookId: string; reason: UnchangedReason }[];
  const ids = [...new Set([...changed.map((c) => c.playbookId), ...unchanged.map((u) => u.playbookId)])];
  const [playbooks, erased] = await Promise.all([
    db.playbook.findMany({ where: { id: { in: ids }, accountId }, select: { id: true, name: true } }),
    db.$queryRawUnsafe<{ erased: boolean }[]>(`SELECT EXISTS (SELECT 1 FROM playbook_effects WHERE event_id = $1::uuid AND email LIKE $2) AS erased`, eventId, ERASED_EMAIL_LIKE),
  ]);
  const names = new Map(playbooks.map((p) => [p.id, p.name]));
  const ref = (id: string): PlaybookRef => ({ id, name: names.get(id) ?? null });
  return {
    eventId,
    event: receipt.eventName,
    appliedAt: receipt.at,
    started: changed.filter((c) => c.action === 'started').map((c) => ref(c.playbookId)),
    stopped: changed.filter((c) => c.action === 'stopped').map((c) => ref(c.playbookId)),
    unchanged: unchanged.map((u) => ({ ...ref(u.playbookId), reason: u.reason })),
    personErased: erased[0]?.erased ?? false,
  };
}
