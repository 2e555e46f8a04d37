// An account's segments: created, listed, changed and deleted; counted and their members paged now
// (best score first), and a member as an alert shows it (score and top reasons, where, what it read
// last, the email of an identified visitor). The companies matching industry and size come from the
// gateway (keys) and are kept with the filter, never answered.
import { randomUUID } from 'node:crypto';
import type { Db } from '@glimpse/db/visitors';
import { AppError } from '@glimpse/errors';
import type { SegmentMemberMessage } from '@glimpse/messaging';
import {
  answerOf,
  DEFAULT_INTENT_SETTINGS,
  INTENT_REASONS_MAX,
  type IntentContribution,
  type IntentReason,
  type IntentWeights,
} from '../domain/intent-score.js';
import { DEFAULT_HALF_LIFE_DAYS } from '../domain/intent-decay.js';
import { segmentFilterSchema, type SegmentFilter, type SegmentKind } from '../domain/segment-filter.js';
import { segmentMembersSql } from './segment-sql.js';

export const SEGMENTS_PER_ACCOUNT = 100;
/** The reasons a member is shown with. */
export const MEMBER_REASONS = 3;

export interface SegmentRecord {
  id: string;
  accountId: string;
  name: string;
  kind: SegmentKind;
  filter: SegmentFilter;
  /** The company keys matching industry and size, when the filter names either. */
  keys: string[] | null;
  alertWindowHours: number;
  createdAt: Date;
  updatedAt: Date;
  evaluatedAt: Date | null;
}

type SegmentRow = {
  id: string;
  account_id: string;
  name: string;
  kind: string;
  filter: Record<string, unknown>;
  alert_window_hours: number;
  created_at: Date;
  updated_at: Date;
  evaluated_at: Date | null;
};

const SEGMENT_COLUMNS = `id::text AS id, account_id::text AS account_id, name, kind, filter, alert_window_hours, created_at, updated_at, evaluated_at`;

export function segmentOf(r: SegmentRow): SegmentRecord {
  const { keys, ...filter } = r.filter as { keys?: string[] };
  return {
    id: r.id,
    accountId: r.account_id,
    name: r.name,
    kind: r.kind as SegmentKind,
    filter: segmentFilterSchema.parse(filter),
    keys: Array.isArray(keys) ? keys : null,
    alertWindowHours: r.alert_window_hours,
    createdAt: new Date(r.created_at),
    updatedAt: new Date(r.updated_at),
    evaluatedAt: r.evaluated_at === null ? null : new Date(r.evaluated_at),
  };
}

const stored = (filter: SegmentFilter, keys: string[] | null) => JSON.stringify(keys === null ? filter : { ...filter, keys });

/** A unique-name violation: the account has a segment of this name. */
function nameTaken(err: unknown): boolean {
  return (
    typeof err === 'object' &&
    err !== null &&
    (String((err as { message?: unknown }).message).includes('segments_account_id_name_key') || (err as { code?: string }).code === 'P2002')
  );
}

export async function listSegments(db: Db, accountId: string): Promise<SegmentRecord[]> {
  const rows = await db.$queryRawUnsafe<SegmentRow[]>(`SELECT ${SEGMENT_COLUMNS} FROM segments WHERE account_id = $1::uuid ORDER BY created_at, id`, accountId);
  return rows.map(segmentOf);
}

export async function findSegment(db: Db, accountId: string, id: string): Promise<SegmentRecord | null> {
  const rows = await db.$queryRawUnsafe<SegmentRow[]>(`SELECT ${SEGMENT_COLUMNS} FROM segments WHERE account_id = $1::uuid AND id = $2::uuid`, accountId, id);
  return rows[0] ? segmentOf(rows[0]) : null;
}

/** The new segment; at most `max` per account (checked under the account's lock); a taken name is a 400. */
export async function createSegment(
  db: Db,
  accountId: string,
  s: { name: string; kind: SegmentKind; filter: SegmentFilter; alertWindowHours: number; keys: string[] | null },
  max = SEGMENTS_PER_ACCOUNT,
): Promise<SegmentRecord> {
  try {
    return await db.$transaction(async (tx) => {
      await tx.$executeRawUnsafe(`SELECT pg_advisory_xact_lock(hashtextextended('segments:' || $1::text, 0))`, accountId);
      const rows = await tx.$queryRawUnsafe<SegmentRow[]>(
        `INSERT INTO segments (id, account_id, name, kind, filter, alert_window_hours)
         SELECT $1::uuid, $2::uuid, $3, $4, $5::jsonb, $6::int WHERE (SELECT count(*) FROM segments WHERE account_id = $2::uuid) < $7::int
         RETURNING ${SEGMENT_COLUMNS}`,
        randomUUID(),
        accountId,
        s.name,
        s.kind,
        stored(s.filter, s.keys),
        s.alertWindowHours,
        max,
      );
      if (!rows[0]) throw new AppError('limit_reached', `an account has at most ${max} segments: delete one first`);
      return segmentOf(rows[0]);
    });
  } catch (err) {
    if (nameTaken(err)) throw new AppError('invalid_request', 'the account has a segment of this name');
    throw err;
  }
}

/**
 * Changes a segment. A new filter starts its members afresh: the next evaluation takes who is in
 * then as the members without announcing them (only who enters afterwards is announced).
 */
export async function updateSegment(
  db: Db,
  accountId: string,
  id: string,
  change: { name?: string; filter?: SegmentFilter; alertWindowHours?: number; keys?: string[] | null },
): Promise<SegmentRecord | null> {
  const current = await findSegment(db, accountId, id);
  if (!current) return null;
  const filter = change.filter ?? current.filter;
  const keys = change.keys !== undefined ? change.keys : current.keys;
  try {
    return await db.$transaction(async (tx) => {
      if (change.filter !== undefined) await tx.$executeRawUnsafe(`DELETE FROM segment_members WHERE segment_id = $1::uuid`, id);
      const rows = await tx.$queryRawUnsafe<SegmentRow[]>(
        `UPDATE segments SET name = $3, filter = $4::jsonb, alert_window_hours = $5::int, updated_at = now(),
           evaluated_at = CASE WHEN $6::boolean THEN NULL ELSE evaluated_at END
         WHERE account_id = $1::uuid AND id = $2::uuid RETURNING ${SEGMENT_COLUMNS}`,
        accountId,
        id,
        change.name ?? current.name,
        stored(filter, keys),
        change.alertWindowHours ?? current.alertWindowHours,
        change.filter !== undefined,
      );
      return rows[0] ? segmentOf(rows[0]) : null;
    });
  } catch (err) {
    if (nameTaken(err)) throw new AppError('invalid_request', 'the account has a segment of this name');
    throw err;
  }
}

/** Replaces the stored company keys of industry and size (the gateway's refresh); false when there is no such segment. */
export async function storeSegmentKeys(db: Db, accountId: string, id: string, keys: string[] | null): Promise<boolean> {
  const n = await db.$executeRawUnsafe(
    `UPDATE segments SET filter = CASE WHEN $3::jsonb IS NULL THEN filter - 'keys' ELSE jsonb_set(filter, '{keys}', $3::jsonb) END
     WHERE account_id = $1::uuid AND id = $2::uuid`,
    accountId,
    id,
    keys === null ? null : JSON.stringify(keys),
  );
  return n > 0;
}

export async function deleteSegment(db: Db, accountId: string, id: string): Promise<boolean> {
  return (await db.$executeRawUnsafe(`DELETE FROM segments WHERE account_id = $1::uuid AND id = $2::uuid`, accountId, id)) > 0;
}

/** Every company key of the account's visitors (the gateway matches them against industry and size), at most `max`. */
export async function accountCompanyKeys(db: Db, accountId: string, max: number): Promise<string[]> {
  const rows = await db.$queryRawUnsafe<{ key: string }[]>(
    `SELECT DISTINCT company_key AS key FROM visitor_profiles WHERE account_id = $1::uuid AND company_key IS NOT NULL LIMIT $2::int`,
    accountId,
    max,
  );
  return rows.map((r) => r.key);
}

/** The account's half-life in days (the default without settings). */
export async function halfLifeDays(db: Db, accountId: string): Promise<number> {
  const rows = await db.$queryRawUnsafe<{ d: number }[]>(`SELECT half_life_days AS d FROM intent_settings WHERE account_id = $1::uuid`, accountId);
  return rows[0]?.d ?? DEFAULT_HALF_LIFE_DAYS;
}

/** The members query of a segment now, with its parameters from $1 (account, now, keys, half-life, the filter's). */
export async function membersQuery(
  db: Db,
  s: Pick<SegmentRecord, 'accountId' | 'kind' | 'filter' | 'keys'>,
  now: Date,
): Promise<{ sql: string; params: unknown[] }> {
  const days = await halfLifeDays(db, s.accountId);
  const part = segmentMembersSql(s.kind, s.filter, days, now);
  return { sql: part.sql, params: [s.accountId, now.toISOString(), s.keys, days * 86_400, ...part.params] };
}

/** How many are in the segment now. */
export async function countSegment(db: Db, s: SegmentRecord, now: Date): Promise<number> {
  const q = await membersQuery(db, s, now);
  const rows = await db.$queryRawUnsafe<{ n: number }[]>(`SELECT count(*)::int AS n FROM (${q.sql}) m`, ...q.params);
  return rows[0]?.n ?? 0;
}

/** A page cursor: after this rank and key (best first, then key). */
export interface MemberCursor {
  rank: number;
  key: string;
}

export function encodeMemberCursor(c: MemberCursor): string {
  return Buffer.from(JSON.stringify([c.rank, c.key])).toString('base64url');
}

export function decodeMemberCursor(text: string): MemberCursor {
  try {
    const [rank, key] = JSON.parse(Buffer.from(text, 'base64url').toString('utf8')) as unknown[];
    if (typeof rank === 'number' && Number.isFinite(rank) && typeof key === 'string' && key.length <= 300) return { rank, key };
  } catch {
    // answered below
  }
  throw new AppError('invalid_request', 'cursor is not one this list gave');
}

/**
 * A page of members with their scores now (float, 0 to 100), best first: by rank, which orders the
 * scores the same at any time, so a cursor taken a minute ago still cuts the list where it did;
 * `limit + 1` rows to tell whether more follow.
 */
export async function memberPage(
  db: Db,
  s: SegmentRecord,
  now: Date,
  limit: number,
  after: MemberCursor | null,
): Promise<{ key: string; score: number; rank: number }[]> {
  const q = await membersQuery(db, s, now);
  const n = q.params.length;
  return db.$queryRawUnsafe<{ key: string; score: number; rank: number }[]>(
    `SELECT key, score, rank FROM (${q.sql}) m
     WHERE $${n + 1}::float8 IS NULL OR (m.rank, m.key) < ($${n + 1}::float8, $${n + 2}::text)
     ORDER BY m.rank DESC, m.key DESC LIMIT $${n + 3}::int`,
    ...q.params,
    after?.rank ?? null,
    after?.key ?? '',
    limit + 1,
  );
}

/** The account's weights: its intent settings (the defaults without a row) and its page rules' weights. */
export async function intentWeights(db: Db, accountId: string): Promise<IntentWeights> {
  const [settings, rules] = await Promise.all([
    db.$queryRawUnsafe<
      { half_life_days: number; page_view_weight: number; session_weight: number; engaged_minute_weight: number; event_weights: Record<string, number> }[]
    >(
      `SELECT half_life_days, page_view_weight, session_weight, engaged_minute_weight, event_weights FROM intent_settings WHERE account_id = $1::uuid`,
      accountId,
    ),
    db.$queryRawUnsafe<{ id: string; weight: number }[]>(`SELECT id::text AS id, weight FROM page_rules WHERE account_id = $1::uuid AND weight > 0`, accountId),
  ]);
  const s = settings[0];
  return {
    ...(s
      ? {
          halfLifeDays: s.half_life_days,
          pageViewWeight: s.page_view_weight,
          sessionWeight: s.session_weight,
          engagedMinuteWeight: s.engaged_minute_weight,
          eventWeights: s.event_weights,
        }
      : DEFAULT_INTENT_SETTINGS),
    ruleWeights: new Map(rules.map((r) => [r.id, r.weight])),
  };
}

type Location = SegmentMemberMessage['location'];
type Page = { path: string; title: string | null; at: string };

type MemberRow = {
  key: string;
  name: string | null;
  domain: string | null;
  email: string | null;
  location: Location;
  pages: Page[] | null;
  contributions: IntentContribution[][];
  visitors: number;
};

/**
 * Members as alerts and the members list show them, in the order of `scored` (whose scores are the
 * page's): visitors with their company's name and domain and their email when identified;
 * companies with their name, domain, visitors, latest visitor's location and pages.
 */
export async function describeMembers(
  db: Db,
  s: Pick<SegmentRecord, 'accountId' | 'kind'>,
  scored: readonly { key: string; score: number }[],
  now: Date,
  weights: IntentWeights,
  reasons = MEMBER_REASONS,
): Promise<(SegmentMemberMessage & { reasons: IntentReason[] })[]> {
  if (scored.length === 0) return [];
  const keys = scored.map((m) => m.key);
  const rows =
    s.kind === 'visitors'
      ? await db.$queryRawUnsafe<MemberRow[]>(
          `SELECT p.id AS key, p.company->>'name' AS name, p.company->>'domain' AS domain, p.email, p.location,
             (SELECT jsonb_agg(lp) FROM (SELECT lp FROM jsonb_array_elements(p.last_pages) lp LIMIT 5) x) AS pages,
             jsonb_build_array(p.intent_contributions) AS contributions, 1 AS visitors
           FROM visitor_profiles p WHERE p.account_id = $1::uuid AND p.id = ANY($2::text[])`,
          s.accountId,
          keys,
        )
      : await db.$queryRawUnsafe<MemberRow[]>(
          `SELECT k.key, c.name, c.domain, NULL::text AS email, c.location, c.pages, c.contributions, c.visitors
           FROM unnest($2::text[]) AS k(key) CROSS JOIN LATERAL (
             SELECT (array_agg(p.company->>'name' ORDER BY p.last_seen DESC) FILTER (WHERE p.company IS NOT NULL))[1] AS name,
               (array_agg(p.company->>'domain' ORDER BY p.last_seen DESC) FILTER (WHERE p.company IS NOT NULL))[1] AS domain,
               (array_agg(p.location ORDER BY p.last_seen DESC) FILTER (WHERE p.location IS NOT NULL))[1] AS location,
               (SELECT jsonb_agg(lp ORDER BY lp->>'at' DESC) FROM (
                  SELECT lp FROM visitor_profiles q, jsonb_array_elements(q.last_pages) lp
                  WHERE q.account_id = $1::uuid AND q.company_key = k.key ORDER BY lp->>'at' DESC LIMIT 5) x) AS pages,
               jsonb_agg(p.intent_contributions) AS contributions, count(*)::int AS visitors
             FROM visitor_profiles p WHERE p.account_id = $1::uuid AND p.company_key = k.key) c`,
          s.accountId,
          keys,
        );
  const byKey = new Map(rows.map((r) => [r.key, r]));
  const out: (SegmentMemberMessage & { reasons: IntentReason[] })[] = [];
  for (const m of scored) {
    const r = byKey.get(m.key);
    if (!r) continue;
    const answer = answerOf(m.score, r.contributions ?? [], now, weights, Math.min(reasons, INTENT_REASONS_MAX));
    out.push({
      kind: s.kind === 'visitors' ? 'visitor' : 'company',
      key: m.key,
      name: r.name,
      domain: r.domain,
      email: s.kind === 'visitors' ? r.email : null,
      score: answer.score,
      reasons: answer.reasons,
      location: r.location
        ? { country: r.location.country ?? null, region: r.location.region ?? null, city: r.location.city ?? null, time_zone: r.location.time_zone ?? null }
        : null,
      lastPages: (r.pages ?? []).slice(0, 5).map((p) => ({ path: String(p.path).slice(0, 2048), title: p.title ?? null, at: new Date(p.at).toISOString() })),
      visitors: r.visitors,
    });
  }
  return out;
}

/** An account deleted: its segments (their members and entries with them) and its alert settings. */
export async function deleteAccountSegments(db: Db, accountId: string): Promise<number> {
  const [segments, settings] = await db.$transaction([
    db.$executeRawUnsafe(`DELETE FROM segments WHERE account_id = $1::uuid`, accountId),
    db.$executeRawUnsafe(`DELETE FROM alert_settings WHERE account_id = $1::uuid`, accountId),
  ]);
  return segments + settings;
}

/** A person erased: the unsent entries naming their email go (a sent one's message is already emptied). */
export async function eraseSegmentEntries(db: Db, accountId: string, email: string): Promise<number> {
  return db.$executeRawUnsafe(
    `DELETE FROM segment_entries WHERE account_id = $1::uuid AND published_at IS NULL AND message->'member'->>'email' = $2`,
    accountId,
    email,
  );
}
