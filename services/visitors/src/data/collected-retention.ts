// collected_messages (the dedupe of message ids) would grow forever: ids older than the retention
// are deleted periodically, in bounded chunks. The retention (48 h) outlasts any redelivery: a
// message is on visitors.collected at most about 24.6 h (retention.ms 23 h + segment.ms 30 min +
// the broker's check interval and delete delay). One replica deletes at a time (an advisory lock).
import { withAdvisoryLock, type Db } from '@glimpse/db';
import type { Logger } from '@glimpse/logging';

const CHUNK = 5000;

const PURGE = `DELETE FROM collected_messages WHERE (visitor_id, id) IN (
  SELECT visitor_id, id FROM collected_messages WHERE at < now() - make_interval(hours => $1::int) LIMIT ${CHUNK})`;

/** Deletes collected ids older than `retentionHours`; returns how many. Skips (0) when another replica holds the purge. */
export async function purgeCollectedIds(db: Db, retentionHours: number): Promise<number> {
  const deleted = await withAdvisoryLock(db, 'collectedMessagesPurge', async (tx) => {
    let total = 0;
    for (let n = CHUNK; n === CHUNK; total += n) n = await tx.$executeRawUnsafe(PURGE, retentionHours);
    return total;
  }, { timeout: 60_000 });
  return deleted ?? 0;
}

/** Runs the purge soon and every `intervalMs`; stop() ends it. */
export function scheduleCollectedPurge(db: Db, { retentionHours, intervalMs, logger }: { retentionHours: number; intervalMs: number; logger: Logger }): { stop(): void } {
  const run = () =>
    purgeCollectedIds(db, retentionHours).then(
      (n) => n > 0 && logger.info({ deleted: n, retentionHours }, 'old collected message ids deleted'),
      (err: unknown) => logger.warn({ err: (err as Error).message?.slice(0, 200) }, 'collected_messages purge failed; next round'),
    );
  const first = setTimeout(run, Math.min(intervalMs, 30_000));
  const timer = setInterval(run, intervalMs);
  first.unref();
  timer.unref();
  return {
    stop() {
      clearTimeout(first);
      clearInterval(timer);
    },
  };
}
