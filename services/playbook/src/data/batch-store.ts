// The batch apply's storage (domain/batch-store.ts's BatchStore) in Postgres, with set-based
// statements, each one round trip whatever the batch's size (arrays bound as parameters, unnest on
// the server); domain/apply-batch.ts says what happens in which order:
//   1. dedupe: every event id at once, INSERT … ON CONFLICT DO NOTHING RETURNING (the new ones);
//   2. the opted-in playbooks of the batch's (account, name) pairs, one query;
//   3. the active enrollments of its (account, email) pairs in those playbooks, and for the playbooks
//      whose re-enrollment policy is `once` whether each person was ever enrolled, and which of
//      them are suppressed (their triggers start nothing), one query;
//   4. the plan's writes: the stops (one UPDATE), the starts (one INSERT), the effect rows (one
//      INSERT, the outbox) and the receipts of the events that opt in to a playbook (one INSERT);
//   5. the catalog: one change row per distinct (account, name), appended to event_name_deltas
//      (no shared row is updated, so replicas never queue on a name's row); foldCatalog moves the
//      changes into event_names in a short transaction of its own, one fold at a time.
import { columns, withAdvisoryLock } from '@glimpse/db';
import { type Db, type Tx } from '@glimpse/db/playbook';
import type { AccountsCheck, BatchStore, BatchTransaction, EffectRecord, PlanState } from '../domain/batch-store.js';
import type { ReenrollmentPolicy } from '../domain/decide-effects.js';
import { DEFAULT_LIMITS } from '../domain/limits.js';
import { pairKey, type ActiveEnrollment, type BatchEvent, type BatchPlan, type OptedIn } from '../domain/plan-batch.js';

export type { AccountsCheck, EffectRecord };

export interface CachedAccountsCheck extends AccountsCheck {
  /** Drops the cached live answer (this replica's accounts consumer calls it on a deletion). */
  forget(id: string): void;
}

/**
 * Accounts are rarely deleted: a live answer is kept for a minute; one query per batch for the rest.
 * A deletion reaches the replica that consumes it at once (forget); the others within the TTL.
 */
export function cachedAccounts(db: Db, ttlMs = 60_000): CachedAccountsCheck {
  const cache = new Map<string, number>();
  return {
    forget(id) {
      cache.delete(id);
    },
    async known(ids) {
      const now = Date.now();
      const found = new Set<string>();
      const ask: string[] = [];
      for (const id of new Set(ids)) {
        if ((cache.get(id) ?? 0) > now) found.add(id);
        else ask.push(id);
      }
      if (ask.length > 0) {
        const deleted = new Set((await db.$queryRawUnsafe<{ id: string }[]>(SQL.deletedAccounts, ask)).map((r) => r.id));
        if (cache.size > 100_000) cache.clear();
        for (const id of ask) {
          if (deleted.has(id)) continue;
          found.add(id);
          cache.set(id, now + ttlMs);
        }
      }
      return found;
    },
  };
}

/** Prisma's interactive transaction ends after 5 s by default: a big batch on a loaded machine, or one waiting on a lock, needs longer. */
const TRANSACTION = { maxWait: 10_000, timeout: 30_000 };

/** The columns of an outbox row (EffectRow), as every read of unpublished effects selects them. */
export const EFFECT_COLUMNS = `id::text AS id, event_id::text AS event_id, account_id::text AS account_id, playbook_id::text AS playbook_id,
    email, action, at, cause`;

// Constant statement texts (bound parameters only): Postgres and the driver cache their plans.
const SQL = {
  erasures: `SELECT e.account_id::text AS account_id, e.email_hash, e.erased_at FROM erasures e
    JOIN (SELECT DISTINCT * FROM unnest($1::uuid[], $2::text[])) AS p(account_id, email_hash) USING (account_id, email_hash)`,
  deletedAccounts: `SELECT account_id::text AS id FROM account_states WHERE account_id = ANY($1::uuid[]) AND deleted_at IS NOT NULL`,
  dedupe: `INSERT INTO processed_events (event_id, account_id)
    SELECT * FROM unnest($1::uuid[], $2::uuid[])
    ON CONFLICT (event_id) DO NOTHING
    RETURNING event_id::text AS id`,
  optedIn: `WITH pairs AS (SELECT DISTINCT * FROM unnest($1::uuid[], $2::text[]) AS p(account_id, event_name))
    SELECT 'exit' AS kind, x.account_id::text AS account_id, x.event_name, x.playbook_id::text AS playbook_id, NULL AS reenrollment
      FROM playbook_exits x JOIN pairs USING (account_id, event_name)
    UNION ALL
    SELECT 'trigger', t.account_id::text, t.event_name, t.playbook_id::text, p.reenrollment
      FROM playbook_triggers t JOIN pairs USING (account_id, event_name) JOIN playbooks p ON p.id = t.playbook_id`,
  // The active enrollments of the people in the playbooks, and (for the once playbooks, $4) whether
  // they were ever enrolled: one stopped row per person and playbook is enough.
  // And which of the people are suppressed (status 'suppressed', no enrollment): the same round trip.
  active: `WITH p AS (SELECT DISTINCT * FROM unnest($1::uuid[], $2::text[]) AS p(account_id, email))
    (SELECT DISTINCT ON (e.playbook_id, e.account_id, e.email, e.status = 'active')
      e.id::text AS id, e.playbook_id::text AS playbook_id, e.account_id::text AS account_id, e.email, e.status
    FROM enrollments e JOIN p USING (account_id, email)
    WHERE e.playbook_id = ANY($3::uuid[]) AND (e.status = 'active' OR e.playbook_id = ANY($4::uuid[])))
    UNION ALL
    SELECT NULL, NULL, s.account_id::text, s.email, 'suppressed' FROM suppressions s JOIN p USING (account_id, email)`,
  stop: `UPDATE enrollments e SET status = 'stopped', stopped_at = $4::timestamptz, stopped_by = u.stopped_by, stop_event_id = u.stop_event_id
    FROM unnest($1::uuid[], $2::text[], $3::uuid[]) AS u(id, stopped_by, stop_event_id)
    WHERE e.id = u.id AND e.status = 'active'`,
  start: `INSERT INTO enrollments (id, playbook_id, account_id, email, status, started_at, started_by, start_event_id, stopped_at, stopped_by, stop_event_id)
    SELECT u.id, u.playbook_id, u.account_id, u.email, u.status, $10::timestamptz, u.started_by, u.start_event_id,
           CASE WHEN u.status = 'stopped' THEN $10::timestamptz END, u.stopped_by, u.stop_event_id
    FROM unnest($1::uuid[], $2::uuid[], $3::uuid[], $4::text[], $5::text[], $6::text[], $7::uuid[], $8::text[], $9::uuid[])
      AS u(id, playbook_id, account_id, email, status, started_by, start_event_id, stopped_by, stop_event_id)`,
  effects: `INSERT INTO playbook_effects (id, event_id, account_id, playbook_id, email, action, event_name, at)
    SELECT u.*, $8::timestamptz
    FROM unnest($1::uuid[], $2::uuid[], $3::uuid[], $4::uuid[], $5::text[], $6::text[], $7::text[])
      AS u(id, event_id, account_id, playbook_id, email, action, event_name)`,
  // The receipts of the events that opt in to a playbook: what each did, ids and reasons only.
  receipts: `INSERT INTO event_receipts (event_id, account_id, event_name, changed, unchanged, at)
    SELECT u.event_id, u.account_id, u.event_name, u.changed::jsonb, u.unchanged::jsonb, $6::timestamptz
    FROM unnest($1::uuid[], $2::uuid[], $3::text[], $4::text[], $5::text[]) AS u(event_id, account_id, event_name, changed, unchanged)
    ON CONFLICT (event_id) DO NOTHING`,
  // Appended, never updated: no row is shared between concurrent batches (foldCatalog moves them on).
  catalog: `INSERT INTO event_name_deltas (account_id, name, first_seen_at, last_seen_at, count)
    SELECT * FROM unnest($1::uuid[], $2::text[], $3::timestamptz[], $4::timestamptz[], $5::bigint[])`,
  // One fold at a time (the others skip): the oldest changes, summed per name, into event_names in
  // (account, name) order, deleted in the same statement, so each is counted exactly once. A name
  // new to its account is added only while the account's catalog has room ($2 names): the chunk's
  // new names of an account are admitted earliest first seen first (as readers of the catalog
  // expect, playbook-repository's CATALOG), the others dropped, their events counted in
  // catalog_refusals with the last such name. Their events were applied all the same.
  fold: `WITH d AS (
      DELETE FROM event_name_deltas WHERE id IN (SELECT id FROM event_name_deltas ORDER BY id LIMIT $1)
      RETURNING account_id, name, first_seen_at, last_seen_at, count),
    g AS (
      SELECT d.account_id, d.name, min(d.first_seen_at) AS first_seen_at, max(d.last_seen_at) AS last_seen_at, sum(d.count) AS count,
        EXISTS (SELECT 1 FROM event_names e WHERE e.account_id = d.account_id AND e.name = d.name) AS known
      FROM d WHERE NOT EXISTS (SELECT 1 FROM account_states s WHERE s.account_id = d.account_id AND s.deleted_at IS NOT NULL)
      GROUP BY d.account_id, d.name),
    have AS (
      SELECT e.account_id, count(*) AS n FROM event_names e
      WHERE e.account_id IN (SELECT account_id FROM g WHERE NOT known) GROUP BY e.account_id),
    ranked AS (
      SELECT g.*, g.known OR coalesce(have.n, 0) + row_number() OVER (PARTITION BY g.account_id, g.known ORDER BY g.first_seen_at, g.name) <= $2::int AS admitted
      FROM g LEFT JOIN have USING (account_id)),
    refused AS (
      INSERT INTO catalog_refusals (account_id, events, last_name, first_at, last_at)
      SELECT account_id, sum(count), (array_agg(name ORDER BY last_seen_at DESC, name))[1], min(first_seen_at), max(last_seen_at)
      FROM ranked WHERE NOT admitted GROUP BY account_id
      ON CONFLICT (account_id) DO UPDATE SET
        events = catalog_refusals.events + EXCLUDED.events,
        last_name = CASE WHEN EXCLUDED.last_at >= catalog_refusals.last_at THEN EXCLUDED.last_name ELSE catalog_refusals.last_name END,
        last_at = GREATEST(catalog_refusals.last_at, EXCLUDED.last_at))
    INSERT INTO event_names (account_id, name, first_seen_at, last_seen_at, count)
    SELECT account_id, name, first_seen_at, last_seen_at, count FROM ranked WHERE admitted
    ORDER BY account_id, name
    ON CONFLICT (account_id, name) DO UPDATE SET
      first_seen_at = LEAST(event_names.first_seen_at, EXCLUDED.first_seen_at),
      last_seen_at = GREATEST(event_names.last_seen_at, EXCLUDED.last_seen_at),
      count = event_names.count + EXCLUDED.count`,
  unpublished: `SELECT ${EFFECT_COLUMNS} FROM playbook_effects WHERE event_id = ANY($1::uuid[]) AND published_at IS NULL`,
  markPublished: `UPDATE playbook_effects SET published_at = now() WHERE id = ANY($1::uuid[]) AND published_at IS NULL`,
};

/** An outbox row as read back (EFFECT_COLUMNS). */
export interface EffectRow {
  id: string;
  event_id: string;
  account_id: string;
  playbook_id: string;
  email: string;
  action: string;
  at: Date;
  cause: string | null;
}

export function effectFromRow(r: EffectRow): EffectRecord {
  return {
    id: r.id,
    eventId: r.event_id,
    accountId: r.account_id,
    playbookId: r.playbook_id,
    email: r.email,
    action: r.action,
    at: new Date(r.at),
    cause: r.cause,
  };
}

/** The batch apply's storage in Postgres (see the top of this file). */
export function createBatchStore(db: Db): BatchStore {
  return {
    async erasedAt(pairs) {
      if (pairs.length === 0) return new Map();
      const rows = await db.$queryRawUnsafe<{ account_id: string; email_hash: string; erased_at: Date }[]>(
        SQL.erasures,
        ...columns(pairs, ['accountId', 'emailHash']),
      );
      return new Map(rows.map((r) => [pairKey(r.account_id, r.email_hash), new Date(r.erased_at).getTime()]));
    },
    transaction: (work) => db.$transaction((tx) => work(batchTransaction(tx)), TRANSACTION),
    async unpublishedEffects(eventIds) {
      const rows = await db.$queryRawUnsafe<EffectRow[]>(SQL.unpublished, eventIds);
      return rows.map(effectFromRow);
    },
  };
}

function batchTransaction(tx: Tx): BatchTransaction {
  return {
    async claimNew(events) {
      const rows = await tx.$queryRawUnsafe<{ id: string }[]>(SQL.dedupe, ...columns(events, ['eventId', 'accountId']));
      return new Set(rows.map((r) => r.id));
    },
    planState: (events) => loadPlanState(tx, events),
    write: (plan, at) => writePlan(tx, plan, at.toISOString()),
  };
}

/** The plan's writes in the batch's transaction: one statement each, none when there is nothing to write (the catalog always). */
async function writePlan(tx: Tx, plan: BatchPlan, at: string): Promise<void> {
  if (plan.stops.length > 0) await writeStops(tx, plan.stops, at);
  if (plan.starts.length > 0) await writeStarts(tx, plan.starts, at);
  if (plan.effects.length > 0) await writeEffects(tx, plan.effects, at);
  if (plan.receipts.length > 0) await writeReceipts(tx, plan.receipts, at);
  await appendCatalogChanges(tx, plan.catalog);
}

async function writeStops(tx: Tx, s: BatchPlan['stops'], at: string): Promise<void> {
  await tx.$executeRawUnsafe(SQL.stop, ...columns(s, ['enrollmentId', 'stoppedBy', 'stopEventId']), at);
}

async function writeStarts(tx: Tx, s: BatchPlan['starts'], at: string): Promise<void> {
  await tx.$executeRawUnsafe(
    SQL.start,
    ...columns(s, ['id', 'playbookId', 'accountId', 'email', 'status', 'startedBy', 'startEventId', 'stoppedBy', 'stopEventId']),
    at,
  );
}

/** The outbox rows: published right after the commit, or by the sweeper (effects-outbox.ts). */
async function writeEffects(tx: Tx, f: BatchPlan['effects'], at: string): Promise<void> {
  await tx.$executeRawUnsafe(SQL.effects, ...columns(f, ['id', 'eventId', 'accountId', 'playbookId', 'email', 'action', 'eventName']), at);
}

async function writeReceipts(tx: Tx, r: BatchPlan['receipts'], at: string): Promise<void> {
  await tx.$executeRawUnsafe(
    SQL.receipts,
    ...columns(r, ['eventId', 'accountId', 'eventName', (x) => JSON.stringify(x.changed), (x) => JSON.stringify(x.unchanged)]),
    at,
  );
}

async function appendCatalogChanges(tx: Tx, c: BatchPlan['catalog']): Promise<void> {
  await tx.$executeRawUnsafe(SQL.catalog, ...columns(c, ['accountId', 'name', 'firstSeenAt', 'lastSeenAt', 'count']));
}

/** Queries only: the batch apply runs it in its transaction, the dry run in a read-only one. */
type Reader = Pick<Db, '$queryRawUnsafe'>;

/** The two reads of a batch: the opted-in playbooks (with their policies) of its names, and its people's enrollments in them. */
export async function loadPlanState(tx: Reader, events: readonly BatchEvent[]): Promise<PlanState> {
  const pairs = uniquePairs(events, (e) => e.name);
  const rows = await tx.$queryRawUnsafe<
    { kind: 'exit' | 'trigger'; account_id: string; event_name: string; playbook_id: string; reenrollment: string | null }[]
  >(
    SQL.optedIn,
    pairs.map((p) => p[0]),
    pairs.map((p) => p[1]),
  );
  const optedIn = new Map<string, OptedIn & { exits: string[]; triggers: string[] }>();
  const policies = new Map<string, ReenrollmentPolicy>();
  for (const r of rows) {
    if (r.reenrollment) policies.set(r.playbook_id, r.reenrollment as ReenrollmentPolicy);
    const key = pairKey(r.account_id, r.event_name);
    const o = optedIn.get(key) ?? { exits: [], triggers: [] };
    (r.kind === 'exit' ? o.exits : o.triggers).push(r.playbook_id);
    optedIn.set(key, o);
  }

  const active: ActiveEnrollment[] = [];
  const enrolledBefore: Omit<ActiveEnrollment, 'id'>[] = [];
  const suppressed = new Set<string>();
  if (optedIn.size > 0) {
    const touching = events.filter((e) => optedIn.has(pairKey(e.accountId, e.name)));
    const people = uniquePairs(touching, (e) => e.email);
    const playbookIds = [...new Set(rows.map((r) => r.playbook_id))];
    const once = [...policies].filter(([, p]) => p === 'once').map(([id]) => id);
    const found = await tx.$queryRawUnsafe<{ id: string | null; playbook_id: string | null; account_id: string; email: string; status: string }[]>(
      SQL.active,
      people.map((p) => p[0]),
      people.map((p) => p[1]),
      playbookIds,
      once,
    );
    for (const r of found) {
      if (r.status === 'suppressed' || r.playbook_id === null || r.id === null) {
        suppressed.add(pairKey(r.account_id, r.email));
        continue;
      }
      const row = { playbookId: r.playbook_id, accountId: r.account_id, email: r.email };
      if (r.status === 'active') active.push({ id: r.id, ...row });
      else enrolledBefore.push(row);
    }
  }
  return { optedIn, policies, active, enrolledBefore, suppressed };
}

const FOLD_CHUNK = 20_000;

/**
 * Folds pending catalog changes into event_names, an account's new names only while its catalog
 * holds fewer than `maxNames`; 0 when another fold is running (it will take them).
 */
export async function foldCatalog(db: Db, { maxNames = DEFAULT_LIMITS.catalogNamesPerAccount }: { maxNames?: number } = {}): Promise<number> {
  return (await withAdvisoryLock(db, 'catalogFold', (tx) => tx.$executeRawUnsafe(SQL.fold, FOLD_CHUNK, maxNames), TRANSACTION)) ?? 0;
}

/** One statement marks a batch's effects published. */
export async function markEffectsPublished(db: Db, effectIds: string[]): Promise<void> {
  if (effectIds.length === 0) return;
  await db.$executeRawUnsafe(SQL.markPublished, effectIds);
}

function uniquePairs(events: readonly BatchEvent[], second: (e: BatchEvent) => string): [string, string][] {
  const seen = new Map<string, [string, string]>();
  for (const e of events) {
    const v = second(e);
    seen.set(pairKey(e.accountId, v), [e.accountId, v]);
  }
  return [...seen.values()];
}
