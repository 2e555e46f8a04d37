// collected_messages (the dedupe of message ids) would grow forever: ids older than the retention
// are deleted periodically, in bounded chunks. The retention (48 h) outlasts any redelivery: a
// message is on visitors.collected at most about 24.6 h (retention.ms 23 h + segment.ms 30 min +
// the broker's check interval and delete delay). Erasure tombstones go after their own retention
// (72 h: past any identify still in flight). One replica deletes at a time (an advisory lock).
import { scheduleRecurringPurge, withAdvisoryLock } from '@glimpse/db';
import { type Db } from '@glimpse/db/visitors';
import type { Logger } from '@glimpse/logging';

const CHUNK = 5000;

const PURGE = `DELETE FROM collected_messages WHERE (account_id, visitor_id, id) IN (
  SELECT account_id, visitor_id, id FROM collected_messages WHERE at < now() - make_interval(hours => $1::int) LIMIT ${CHUNK})`;

const PURGE_ERASURES = `DELETE FROM visitor_erasures WHERE erased_at < now() - make_interval(hours => $1::int)`;

/** Deletes collected ids older than `retentionHours` (and tombstones older than `erasureRetentionHours`); returns how many. Skips (0) when another replica holds the purge. */
export async function purgeCollectedIds(db: Db, retentionHours: number, erasureRetentionHours = 72): Promise<number> {
  const deleted = await withAdvisoryLock(
    db,
    'collectedMessagesPurge',
    async (tx) => {
      let total = await tx.$executeRawUnsafe(PURGE_ERASURES, erasureRetentionHours);
      for (let n = CHUNK; n === CHUNK; total += n) n = await tx.$executeRawUnsafe(PURGE, retentionHours);
      return total;
    },
    { timeout: 60_000 },
  );
  return deleted ?? 0;
}

/** Runs the purge soon and every `intervalMs`; stop() ends it. */
export function scheduleCollectedPurge(
  db: Db,
  { retentionHours, erasureRetentionHours, intervalMs, logger }: { retentionHours: number; erasureRetentionHours?: number; intervalMs: number; logger: Logger },
): { stop(): void } {
  return scheduleRecurringPurge({
    purge: () => purgeCollectedIds(db, retentionHours, erasureRetentionHours),
    intervalMs,
    logger,
    details: { retentionHours },
    deletedMessage: 'old collected message ids and erasure tombstones deleted',
    failedMessage: 'collected_messages purge failed; next round',
  });
}
