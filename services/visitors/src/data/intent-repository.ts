// Intent scores in Postgres: an account's settings (visitors.intent_settings, the defaults without
// a row) and page-rule weights, read together as the weights a score is made and answered with; the
// settings written (which marks the account for re-scoring), and the re-scoring itself: the raw sum,
// time and rank of every scored profile recomputed from its stored contributions, in batches, one
// replica per account at a time (a per-account advisory lock), each batch its own short transaction.
import type { Db } from '@glimpse/db/visitors';
import { columns, scheduleRecurringPurge } from '@glimpse/db';
import type { Logger } from '@glimpse/logging';
import { intentStateOf, type IntentContribution, type IntentSettings, type IntentWeights } from '../domain/intent-score.js';
import { scoreNowSql } from './intent-sql.js';
import { intentSettingsFromRow, type SettingsRow } from './collected-store.js';

type Tx = Pick<Db, '$queryRawUnsafe' | '$executeRawUnsafe'>;

/** The integer score now of profile alias `p`, as answers show it (scoreInteger: rounded). */
export const scoreIntegerSql = (p = 'p') => `floor(${scoreNowSql(p)} + 0.5)::int`;

export interface StoredIntentSettings extends IntentSettings {
  /** When a weight or the half-life last changed (null: never set, the defaults). */
  updatedAt: string | null;
  /** When the account's scores were last recomputed with them. */
  rescoredAt: string | null;
}

type WeightsRow = SettingsRow & { updated_at: Date | null; rescored_at: Date | null };

const WEIGHTS = `SELECT a.account_id::text AS account_id, s.half_life_days, s.page_view_weight, s.session_weight, s.engaged_minute_weight,
    s.event_weights::text AS event_weights, s.updated_at, s.rescored_at,
    (SELECT coalesce(json_object_agg(r.id, r.weight) FILTER (WHERE r.weight > 0), '{}')::text FROM page_rules r WHERE r.account_id = a.account_id) AS rules
  FROM unnest($1::uuid[]) AS a(account_id) LEFT JOIN intent_settings s ON s.account_id = a.account_id`;

const DEFAULTS = { half_life_days: 7, page_view_weight: 1, session_weight: 3, engaged_minute_weight: 1, event_weights: '{}' };
const iso = (d: Date | null) => (d === null ? null : new Date(d).toISOString());

function weightsFromRow(r: WeightsRow): IntentWeights & { updatedAt: string | null; rescoredAt: string | null } {
  const settings = r.half_life_days === null ? intentSettingsFromRow(DEFAULTS) : intentSettingsFromRow({ ...r, half_life_days: r.half_life_days });
  return {
    ...settings,
    ruleWeights: new Map(Object.entries(JSON.parse(r.rules) as Record<string, number>)),
    updatedAt: iso(r.updated_at),
    rescoredAt: iso(r.rescored_at),
  };
}

/** The weights of these accounts (settings and page-rule weights, in one statement), by account id. */
export async function intentWeightsOf(db: Tx, accountIds: readonly string[]): Promise<Map<string, IntentWeights & { updatedAt: string | null }>> {
  if (accountIds.length === 0) return new Map();
  const rows = await db.$queryRawUnsafe<WeightsRow[]>(WEIGHTS, [...new Set(accountIds)]);
  return new Map(rows.map((r) => [r.account_id, weightsFromRow(r)]));
}

export async function intentWeights(db: Tx, accountId: string): Promise<IntentWeights & { updatedAt: string | null; rescoredAt: string | null }> {
  const rows = await db.$queryRawUnsafe<WeightsRow[]>(WEIGHTS, [accountId]);
  return weightsFromRow(rows[0]!);
}

export async function readIntentSettings(db: Tx, accountId: string): Promise<StoredIntentSettings> {
  const { ruleWeights: _rules, ...settings } = await intentWeights(db, accountId);
  return settings;
}

/** Writes the settings; a change marks the account for re-scoring (updated_at). */
export async function writeIntentSettings(db: Tx, accountId: string, s: IntentSettings): Promise<StoredIntentSettings> {
  await db.$executeRawUnsafe(
    `INSERT INTO intent_settings (account_id, half_life_days, page_view_weight, session_weight, engaged_minute_weight, event_weights, updated_at)
     VALUES ($1::uuid, $2, $3, $4, $5, $6::jsonb, now())
     ON CONFLICT (account_id) DO UPDATE SET half_life_days = EXCLUDED.half_life_days, page_view_weight = EXCLUDED.page_view_weight,
       session_weight = EXCLUDED.session_weight, engaged_minute_weight = EXCLUDED.engaged_minute_weight, event_weights = EXCLUDED.event_weights,
       updated_at = CASE WHEN (intent_settings.half_life_days, intent_settings.page_view_weight, intent_settings.session_weight,
           intent_settings.engaged_minute_weight, intent_settings.event_weights)
         IS DISTINCT FROM (EXCLUDED.half_life_days, EXCLUDED.page_view_weight, EXCLUDED.session_weight, EXCLUDED.engaged_minute_weight, EXCLUDED.event_weights)
         THEN now() ELSE intent_settings.updated_at END`,
    accountId,
    s.halfLifeDays,
    s.pageViewWeight,
    s.sessionWeight,
    s.engagedMinuteWeight,
    JSON.stringify(s.eventWeights),
  );
  return readIntentSettings(db, accountId);
}

/** A page rule's weight changed (created, deleted, edited): the account is re-scored (its settings row made if it had none). */
export async function markIntentChanged(db: Tx, accountId: string): Promise<void> {
  await db.$executeRawUnsafe(
    `INSERT INTO intent_settings (account_id, updated_at) VALUES ($1::uuid, now()) ON CONFLICT (account_id) DO UPDATE SET updated_at = now()`,
    accountId,
  );
}

const RESCORE_BATCH = 500;

/**
 * Re-scores one account if no other replica is: every profile with contributions, by id, a batch
 * per transaction (profiles locked in the apply's order, so a chunk and a batch queue instead of
 * deadlocking), with the weights read once; then rescored_at is set to the updated_at those weights
 * had, so a change made meanwhile re-scores again. Answers the profiles re-scored (null: another
 * replica has it).
 */
export async function rescoreAccount(db: Db, accountId: string, batch = RESCORE_BATCH): Promise<number | null> {
  return db.$transaction(
    async (holder) => {
      const [lock] = await holder.$queryRawUnsafe<{ held: boolean }[]>(
        `SELECT pg_try_advisory_xact_lock(hashtextextended('intent_rescore:' || $1::text, 0)) AS held`,
        accountId,
      );
      if (!lock?.held) return null;
      const w = await intentWeights(db, accountId);
      let after = '';
      let total = 0;
      for (;;) {
        const n = await db.$transaction(async (tx) => {
          const rows = await tx.$queryRawUnsafe<{ id: string; intent_at: Date | null; contributions: string }[]>(
            `SELECT id, intent_at, intent_contributions::text AS contributions FROM visitor_profiles
             WHERE account_id = $1::uuid AND id > $2 AND intent_at IS NOT NULL ORDER BY id LIMIT $3::int FOR UPDATE`,
            accountId,
            after,
            batch,
          );
          if (rows.length === 0) return 0;
          const scored = rows.map((r) => ({ id: r.id, ...intentStateOf(JSON.parse(r.contributions) as IntentContribution[], iso(r.intent_at), w) }));
          await tx.$executeRawUnsafe(
            `UPDATE visitor_profiles p SET intent_raw = u.raw, intent_rank = u.rank
             FROM unnest($2::text[], $3::float8[], $4::float8[]) AS u(id, raw, rank) WHERE p.account_id = $1::uuid AND p.id = u.id`,
            accountId,
            ...columns(scored, ['id', 'raw', 'rank']),
          );
          after = rows[rows.length - 1]!.id;
          return rows.length;
        });
        total += n;
        if (n < batch) break;
      }
      await db.$executeRawUnsafe(`UPDATE intent_settings SET rescored_at = $2::timestamptz WHERE account_id = $1::uuid`, accountId, w.updatedAt);
      return total;
    },
    { timeout: 30 * 60_000, maxWait: 10_000 },
  );
}

/** Re-scores the accounts whose weights changed since they were last re-scored (at most `accounts` per round); answers the profiles re-scored. */
export async function rescoreDue(db: Db, accounts = 20): Promise<number> {
  const due = await db.$queryRawUnsafe<{ account_id: string }[]>(
    `SELECT account_id::text AS account_id FROM intent_settings WHERE rescored_at IS NULL OR updated_at > rescored_at ORDER BY updated_at LIMIT $1::int`,
    accounts,
  );
  let total = 0;
  for (const { account_id } of due) total += (await rescoreAccount(db, account_id)) ?? 0;
  return total;
}

/** Re-scores the accounts due soon and every `intervalMs`; stop() ends it (a round in progress finishes its account). */
export function scheduleIntentRescorer(db: Db, { intervalMs, logger }: { intervalMs: number; logger: Logger }): { stop(): void } {
  return scheduleRecurringPurge({
    purge: () => rescoreDue(db),
    intervalMs,
    logger,
    details: { intervalMs },
    deletedMessage: 'intent scores re-scored after a change of weights',
    failedMessage: 'intent re-scoring failed; next round',
  });
}
