// processed_events (the dedupe of event ids) would grow forever: rows older than the retention are
// deleted periodically, in bounded chunks. The retention must outlast any redelivery window: an
// event id can come again only while its message is on events.inbound (at most about 24.6 h:
// retention.ms 23 h + segment.ms 30 min + the broker's check interval and delete delay) or while a
// client retries it with the same Idempotency-Key (within 24 h); 72 h by default is well past both.
// Only one replica deletes at a time (an advisory lock), so replicas do not contend for the rows.
import { scheduleRecurringPurge, withAdvisoryLock } from '@glimpse/db';
import { type Db } from '@glimpse/db/playbook';
import type { Logger } from '@glimpse/logging';

const CHUNK = 5000;

const PURGE = `DELETE FROM processed_events WHERE event_id IN (
  SELECT event_id FROM processed_events WHERE processed_at < now() - make_interval(hours => $1::int) LIMIT ${CHUNK})`;

/** Deletes processed event ids older than `retentionHours`; returns how many. Skips (0) when another replica holds the purge. */
export async function purgeProcessedEvents(db: Db, retentionHours: number): Promise<number> {
  const deleted = await withAdvisoryLock(
    db,
    'processedEventsPurge',
    async (tx) => {
      let total = 0;
      for (let n = CHUNK; n === CHUNK; total += n) n = await tx.$executeRawUnsafe(PURGE, retentionHours);
      // An erasure is remembered only while an event of the person from before it can still arrive
      // (the same window as the event ids: events.inbound keeps a message at most about 24.6 h).
      await tx.$executeRawUnsafe(`DELETE FROM erasures WHERE erased_at < now() - make_interval(hours => $1::int)`, retentionHours);
      return total;
    },
    { timeout: 60_000 },
  );
  return deleted ?? 0;
}

/** Runs the purge now and every `intervalMs`; stop() ends it. */
export function schedulePurge(
  db: Db,
  { retentionHours, intervalMs, logger }: { retentionHours: number; intervalMs: number; logger: Logger },
): { stop(): void } {
  return scheduleRecurringPurge({
    purge: () => purgeProcessedEvents(db, retentionHours),
    intervalMs,
    logger,
    details: { retentionHours },
    deletedMessage: 'old processed event ids deleted',
    failedMessage: 'processed_events purge failed; next round',
  });
}
