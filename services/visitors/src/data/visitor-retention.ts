// Visitor retention (docs/decisions/bounded-growth.md): a visitor not seen for `retentionDays`
// goes with its sessions, identity links and page-rule firings; a cookieless (day) profile goes
// after `cookielessRetentionDays`; company visits (the dedupe of company.visited) go once their
// window is older than the retention. In chunks, each its own short transaction under an advisory
// lock (one replica at a time; the consumer is never held up for long), each profile re-checked
// when it is locked, so a visitor seen again in the meantime stays.
//
// Cookieless profiles are found by the last_seen index: each round looks only at the profiles that
// crossed the cookieless cut-off since the replica's previous round (the first round looks at all
// of them once), so the persistent visitors between the two cut-offs are not scanned again and again.
import { scheduleRecurringPurge, withAdvisoryLock, type PurgeLogger } from '@glimpse/db';
import { type Db } from '@glimpse/db/visitors';

export interface RetentionCounts {
  profiles: number;
  sessions: number;
  links: number;
  firings: number;
  companyVisits: number;
}

export interface VisitorRetentionOptions {
  retentionDays: number;
  cookielessRetentionDays: number;
  /** Profiles (or company visits) per chunk. */
  chunk?: number;
}

export interface VisitorRetention {
  /** One round: every chunk past the cut-offs, until none is left or stop() is called. */
  purge(): Promise<RetentionCounts>;
  /** Ends the round in progress after its current chunk. */
  stop(): void;
}

const DAY_MS = 86_400_000;

/** $1: cut-off, $2: chunk; for cookieless ones also $3: the lower bound of last_seen. */
const deleteVisitors = (which: string) => `
WITH doomed AS (
  SELECT account_id, id FROM visitor_profiles WHERE ${which} LIMIT $2 FOR UPDATE SKIP LOCKED),
p AS (DELETE FROM visitor_profiles v USING doomed d WHERE v.account_id = d.account_id AND v.id = d.id RETURNING v.account_id, v.id),
s AS (DELETE FROM visitor_sessions x USING p WHERE x.account_id = p.account_id AND x.visitor_id = p.id RETURNING 1),
l AS (DELETE FROM identity_links x USING p WHERE x.account_id = p.account_id AND x.visitor_id = p.id RETURNING 1),
f AS (DELETE FROM page_rule_firings x USING p WHERE x.account_id = p.account_id AND x.visitor_id = p.id RETURNING 1)
SELECT (SELECT count(*) FROM p)::int AS profiles, (SELECT count(*) FROM s)::int AS sessions,
  (SELECT count(*) FROM l)::int AS links, (SELECT count(*) FROM f)::int AS firings`;

const PERSISTENT = deleteVisitors('last_seen < $1');
const COOKIELESS = deleteVisitors('last_seen < $1 AND last_seen >= $3 AND cookieless');
const COMPANY_VISITS = `DELETE FROM company_visits WHERE (account_id, site_id, company, window_start) IN (
  SELECT account_id, site_id, company, window_start FROM company_visits WHERE window_start < $1 LIMIT $2)`;

const none = (): RetentionCounts => ({ profiles: 0, sessions: 0, links: 0, firings: 0, companyVisits: 0 });

export function createVisitorRetention(db: Db, { retentionDays, cookielessRetentionDays, chunk = 1000 }: VisitorRetentionOptions): VisitorRetention {
  let stopped = false;
  // Cookieless profiles last seen before this were looked at by an earlier round of this replica.
  let cookielessDoneBefore: Date | undefined;

  /** Chunk after chunk; true once none is left, false when stopped or another replica holds the lock. */
  async function visitors(sql: string, params: unknown[], into: RetentionCounts): Promise<boolean> {
    for (;;) {
      if (stopped) return false;
      const rows = await withAdvisoryLock(db, 'visitorRetention', (tx) => tx.$queryRawUnsafe<Omit<RetentionCounts, 'companyVisits'>[]>(sql, ...params), {
        timeout: 60_000,
      });
      const r = rows?.[0];
      if (!r) return false;
      into.profiles += r.profiles;
      into.sessions += r.sessions;
      into.links += r.links;
      into.firings += r.firings;
      if (r.profiles < chunk) return true;
    }
  }

  return {
    async purge() {
      stopped = false;
      const counts = none();
      const now = Date.now();
      const cutoff = new Date(now - retentionDays * DAY_MS);
      const cookielessCutoff = new Date(now - cookielessRetentionDays * DAY_MS);
      await visitors(PERSISTENT, [cutoff, chunk], counts);
      const from = cookielessDoneBefore ?? new Date(0);
      if (await visitors(COOKIELESS, [cookielessCutoff, chunk, from], counts)) cookielessDoneBefore = cookielessCutoff;
      for (;;) {
        if (stopped) break;
        const n = await withAdvisoryLock(db, 'visitorRetention', (tx) => tx.$executeRawUnsafe(COMPANY_VISITS, cutoff, chunk), { timeout: 60_000 });
        if (n === undefined) break;
        counts.companyVisits += n;
        if (n < chunk) break;
      }
      return counts;
    },
    stop() {
      stopped = true;
    },
  };
}

export interface ScheduleVisitorRetentionOptions extends VisitorRetentionOptions {
  intervalMs: number;
  logger: PurgeLogger;
  /** Rows deleted in a round, by table (counts only). */
  onDeleted(counts: RetentionCounts): void;
}

/** Runs a round soon and every `intervalMs`; stop() ends the schedule and the round in progress (after its chunk). */
export function scheduleVisitorRetention(db: Db, { intervalMs, logger, onDeleted, ...options }: ScheduleVisitorRetentionOptions): { stop(): void } {
  const retention = createVisitorRetention(db, options);
  const schedule = scheduleRecurringPurge({
    purge: async () => {
      const counts = await retention.purge();
      onDeleted(counts);
      return Object.values(counts).reduce((a, b) => a + b, 0);
    },
    intervalMs,
    logger,
    details: { retentionDays: options.retentionDays, cookielessRetentionDays: options.cookielessRetentionDays },
    deletedMessage: 'visitors past their retention deleted (profiles, sessions, identity links, page-rule firings, company visits)',
    failedMessage: 'visitor retention failed; next round',
  });
  return {
    stop() {
      schedule.stop();
      retention.stop();
    },
  };
}
