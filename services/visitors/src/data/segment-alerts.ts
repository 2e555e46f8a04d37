// The segments' alerts, made in the background on every replica:
// - evaluation: each segment due (not evaluated for the interval) is claimed (FOR UPDATE SKIP
//   LOCKED, oldest evaluation first, so replicas share them), its members now are written over the
//   stored ones (new ones with entered_at, the rest seen_at, those gone deleted), and each new
//   member gets one entry per alert window (segment_entries, ON CONFLICT DO NOTHING: leaving and
//   coming back in the window adds none) carrying its segment.entered message, in the same
//   transaction. A segment's first evaluation after it was made or its filter changed takes who is
//   in as members without entries: only who enters afterwards is announced;
// - the outbox: unpublished entries are sent to visitors.segments (key account:segment) and then
//   marked published with their message emptied (it names identified visitors); a crash between the
//   send and the mark sends it again with the same eventId (at least once; consumers dedup by it);
//   published entries go once their window has passed;
// - digests: once per account-local day per segment, at or after the account's digest hour, a
//   segment.digest is sent and the day recorded (digest_sent_on) while the segment row is held; a
//   crash between the two sends it again with the same eventId (a hash of segment and day).
import type { Db } from '@glimpse/db/visitors';
import type { Logger } from '@glimpse/logging';
import {
  TOPICS,
  segmentDigestSchema,
  segmentEnteredSchema,
  type BatchingProducer,
  type SegmentDigestMessage,
  type SegmentEnteredMessage,
} from '@glimpse/messaging';
import { alertWindowStart } from '../domain/segment-filter.js';
import { segmentDigestEventId, segmentEnteredEventId } from '../domain/track-event-id.js';
import { describeMembers, intentWeights, membersQuery, segmentOf, memberPage, type SegmentRecord } from './segment-repository.js';

const SEGMENT_COLUMNS = `id::text AS id, account_id::text AS account_id, name, kind, filter, alert_window_hours, created_at, updated_at, evaluated_at`;
/** Segments evaluated by one replica in one round at most (the rest wait for the next round or another replica). */
const SEGMENTS_PER_ROUND = 50;
const PUBLISH_CHUNK = 500;
/** The top members a digest lists. */
const DIGEST_TOP = 10;
const TX = { timeout: 60_000, maxWait: 10_000 };
/**
 * A member still in has its seen_at moved on at most this often: rewriting every member's row at
 * every evaluation (every 15 s) would be most of the evaluation's writes for nothing.
 */
const SEEN_AT_STEP = '1 hour';

type Row = Parameters<typeof segmentOf>[0];

/** The key of visitors.segments: one segment's alerts stay in order. */
export const segmentAlertKey = (accountId: string, segmentId: string) => `${accountId}:${segmentId}`;

/** Evaluates one due segment if any is left; returns whether it did. */
export async function evaluateNextSegment(db: Db, now: Date, intervalMs: number): Promise<boolean> {
  return db.$transaction(async (tx) => {
    const rows = await tx.$queryRawUnsafe<Row[]>(
      `SELECT ${SEGMENT_COLUMNS} FROM segments
       WHERE evaluated_at IS NULL OR evaluated_at < $1::timestamptz - make_interval(secs => $2::float8 / 1000)
       ORDER BY evaluated_at NULLS FIRST, id LIMIT 1 FOR UPDATE SKIP LOCKED`,
      now.toISOString(),
      intervalMs,
    );
    if (!rows[0]) return false;
    const s = segmentOf(rows[0]);
    const q = await membersQuery(tx as unknown as Db, s, now);
    const n = q.params.length;
    const entered = await tx.$queryRawUnsafe<{ key: string; score: number }[]>(
      `WITH cur AS MATERIALIZED (${q.sql}),
       gone AS (DELETE FROM segment_members sm WHERE sm.segment_id = $${n + 1}::uuid AND NOT EXISTS (SELECT 1 FROM cur WHERE cur.key = sm.member)),
       up AS (INSERT INTO segment_members (segment_id, member, account_id, entered_at, seen_at)
              SELECT $${n + 1}::uuid, key, $1::uuid, $2::timestamptz, $2::timestamptz FROM cur
              ON CONFLICT (segment_id, member) DO UPDATE SET seen_at = EXCLUDED.seen_at
                WHERE segment_members.seen_at < EXCLUDED.seen_at - interval '${SEEN_AT_STEP}'
              RETURNING member, (xmax = 0) AS inserted)
       SELECT up.member AS key, cur.score FROM up JOIN cur ON cur.key = up.member WHERE up.inserted`,
      ...q.params,
      s.id,
    );
    if (s.evaluatedAt !== null && entered.length > 0) await addEntries(tx as unknown as Db, s, entered, now);
    await tx.$executeRawUnsafe(`UPDATE segments SET evaluated_at = $2::timestamptz WHERE id = $1::uuid`, s.id, now.toISOString());
    return true;
  }, TX);
}

async function addEntries(tx: Db, s: SegmentRecord, entered: { key: string; score: number }[], now: Date): Promise<void> {
  const windowStart = alertWindowStart(now, s.alertWindowHours).toISOString();
  const members = await describeMembers(tx, s, entered, now, await intentWeights(tx, s.accountId));
  const messages: SegmentEnteredMessage[] = members.map((member) =>
    segmentEnteredSchema.parse({
      type: 'segment.entered',
      eventId: segmentEnteredEventId(s.id, member.key, windowStart),
      accountId: s.accountId,
      segmentId: s.id,
      segmentName: s.name,
      segmentKind: s.kind,
      windowStart,
      at: now.toISOString(),
      member,
    }),
  );
  if (messages.length === 0) return;
  await tx.$executeRawUnsafe(
    `INSERT INTO segment_entries (segment_id, member, window_start, account_id, at, message)
     SELECT $1::uuid, m->'member'->>'key', $2::timestamptz, $3::uuid, $4::timestamptz, m FROM jsonb_array_elements($5::jsonb) m
     ON CONFLICT (segment_id, member, window_start) DO NOTHING`,
    s.id,
    windowStart,
    s.accountId,
    now.toISOString(),
    JSON.stringify(messages),
  );
}

/** Evaluates the due segments, up to a round's worth; returns how many. */
export async function evaluateSegments(db: Db, now: Date, intervalMs: number, max = SEGMENTS_PER_ROUND): Promise<number> {
  let done = 0;
  while (done < max && (await evaluateNextSegment(db, now, intervalMs))) done += 1;
  return done;
}

/** Sends the unpublished entries (a chunk at a time, held while sent) and empties their messages; returns how many. */
export async function publishEntries(db: Db, producer: Pick<BatchingProducer, 'send'>): Promise<number> {
  let total = 0;
  for (;;) {
    const sent = await db.$transaction(async (tx) => {
      const rows = await tx.$queryRawUnsafe<{ segment_id: string; member: string; window_start: Date; account_id: string; message: unknown }[]>(
        `SELECT segment_id::text AS segment_id, member, window_start, account_id::text AS account_id, message FROM segment_entries
         WHERE published_at IS NULL ORDER BY at LIMIT ${PUBLISH_CHUNK} FOR UPDATE SKIP LOCKED`,
      );
      if (rows.length === 0) return 0;
      await Promise.all(
        rows.map((r) => producer.send(TOPICS.visitorsSegments, { key: segmentAlertKey(r.account_id, r.segment_id), value: JSON.stringify(r.message) })),
      );
      await tx.$executeRawUnsafe(
        `UPDATE segment_entries e SET published_at = now(), message = '{}'::jsonb
         FROM unnest($1::uuid[], $2::text[], $3::timestamptz[]) AS k(segment_id, member, window_start)
         WHERE e.segment_id = k.segment_id AND e.member = k.member AND e.window_start = k.window_start`,
        rows.map((r) => r.segment_id),
        rows.map((r) => r.member),
        rows.map((r) => new Date(r.window_start).toISOString()),
      );
      return rows.length;
    }, TX);
    total += sent;
    if (sent < PUBLISH_CHUNK) return total;
  }
}

/** Deletes published entries whose alert window has passed (a member coming back after it makes a new one anyway); returns how many. */
export async function purgeEntries(db: Db, now: Date): Promise<number> {
  return db.$executeRawUnsafe(
    `DELETE FROM segment_entries e USING segments s
     WHERE s.id = e.segment_id AND e.published_at IS NOT NULL AND e.window_start + make_interval(hours => s.alert_window_hours) <= $1::timestamptz`,
    now.toISOString(),
  );
}

/** Sends one due digest if any is left; returns whether it did. */
export async function sendNextDigest(db: Db, producer: Pick<BatchingProducer, 'send'>, now: Date): Promise<boolean> {
  return db.$transaction(async (tx) => {
    const rows = await tx.$queryRawUnsafe<(Row & { day: string; since: Date | null })[]>(
      `SELECT s.id::text AS id, s.account_id::text AS account_id, s.name, s.kind, s.filter, s.alert_window_hours, s.created_at, s.updated_at, s.evaluated_at,
         to_char(($1::timestamptz AT TIME ZONE z.tz)::date, 'YYYY-MM-DD') AS day,
         (s.digest_sent_on + make_interval(hours => z.hour))::timestamp AT TIME ZONE z.tz AS since
       FROM segments s LEFT JOIN alert_settings a ON a.account_id = s.account_id
         CROSS JOIN LATERAL (SELECT COALESCE(a.time_zone, 'UTC') AS tz, COALESCE(a.digest_hour, 9) AS hour) z
       WHERE extract(hour FROM $1::timestamptz AT TIME ZONE z.tz) >= z.hour
         AND (s.digest_sent_on IS NULL OR s.digest_sent_on < ($1::timestamptz AT TIME ZONE z.tz)::date)
       ORDER BY s.id LIMIT 1 FOR UPDATE OF s SKIP LOCKED`,
      now.toISOString(),
    );
    const row = rows[0];
    if (!row) return false;
    const s = segmentOf(row);
    const [counts] = await tx.$queryRawUnsafe<{ members: number; new_members: number }[]>(
      `SELECT count(*)::int AS members, (count(*) FILTER (WHERE $2::timestamptz IS NULL OR entered_at >= $2::timestamptz))::int AS new_members FROM segment_members WHERE segment_id = $1::uuid`,
      s.id,
      // The first digest counts every member as new.
      row.since === null ? null : new Date(row.since).toISOString(),
    );
    const tdb = tx as unknown as Db;
    const top = await describeMembers(
      tdb,
      s,
      (await memberPage(tdb, s, now, DIGEST_TOP, null)).slice(0, DIGEST_TOP),
      now,
      await intentWeights(tdb, s.accountId),
    );
    const message: SegmentDigestMessage = segmentDigestSchema.parse({
      type: 'segment.digest',
      eventId: segmentDigestEventId(s.id, row.day),
      accountId: s.accountId,
      segmentId: s.id,
      segmentName: s.name,
      segmentKind: s.kind,
      day: row.day,
      newMembers: counts?.new_members ?? 0,
      members: counts?.members ?? 0,
      top,
      at: now.toISOString(),
    });
    await producer.send(TOPICS.visitorsSegments, { key: segmentAlertKey(s.accountId, s.id), value: JSON.stringify(message) });
    await tx.$executeRawUnsafe(`UPDATE segments SET digest_sent_on = $2::date WHERE id = $1::uuid`, s.id, row.day);
    return true;
  }, TX);
}

export async function sendDigests(db: Db, producer: Pick<BatchingProducer, 'send'>, now: Date, max = SEGMENTS_PER_ROUND): Promise<number> {
  let done = 0;
  while (done < max && (await sendNextDigest(db, producer, now))) done += 1;
  return done;
}

/** One round: evaluate, publish, digests, purge. */
export async function segmentAlertsRound(db: Db, producer: Pick<BatchingProducer, 'send'>, intervalMs: number, now = new Date()) {
  const evaluated = await evaluateSegments(db, now, intervalMs);
  const published = await publishEntries(db, producer);
  const digests = await sendDigests(db, producer, now);
  const purged = await purgeEntries(db, now);
  return { evaluated, published, digests, purged };
}

/** Runs a round every `intervalMs` (the next one starts when the last has finished); stop() ends it and waits for the round in hand. */
export function scheduleSegmentAlerts(
  db: Db,
  producer: Pick<BatchingProducer, 'send'>,
  { intervalMs, logger }: { intervalMs: number; logger: Logger },
): { stop(): Promise<void> } {
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<void> = Promise.resolve();
  let stopped = false;
  const round = async () => {
    try {
      const r = await segmentAlertsRound(db, producer, intervalMs);
      if (r.published > 0 || r.digests > 0) logger.info(r, 'segment alerts sent');
    } catch (err) {
      // The message only, cut short: a driver error may quote a whole statement (and its emails).
      logger.warn({ err: (err as Error).message?.slice(0, 200) }, 'segment alerts round failed; next round');
    }
  };
  const next = () => {
    if (stopped) return;
    timer = setTimeout(() => {
      running = round().then(next);
    }, intervalMs);
    timer.unref();
  };
  next();
  return {
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await running;
    },
  };
}
