// Playbooks, their triggers and exits, enrollments and the event-name catalog, as plain objects:
// the management use cases' PlaybookStore (domain/playbook-store.ts) in Postgres.
import { newestFirstPage } from '@glimpse/db';
import type { Db } from '@glimpse/db/playbook';
import type { ReenrollmentPolicy } from '../domain/decide-effects.js';
import type {
  CatalogEntry,
  CatalogRefusals,
  CatalogUsage,
  EnrollmentItem,
  EnrollmentView,
  PlaybookRef,
  PlaybookStore,
  PlaybookView,
} from '../domain/playbook-store.js';
import { lockAccountFor } from './account-lock.js';

const playbookSelect = {
  id: true,
  name: true,
  reenrollment: true,
  createdAt: true,
  updatedAt: true,
  triggers: { select: { eventName: true }, orderBy: { eventName: 'asc' } },
  exits: { select: { eventName: true }, orderBy: { eventName: 'asc' } },
} as const;

type PlaybookRow = {
  id: string;
  name: string;
  reenrollment: string;
  createdAt: Date;
  updatedAt: Date;
  triggers: { eventName: string }[];
  exits: { eventName: string }[];
};

function toView(row: PlaybookRow): PlaybookView {
  return {
    id: row.id,
    name: row.name,
    triggers: row.triggers.map((t) => t.eventName),
    exits: row.exits.map((e) => e.eventName),
    reenrollment: row.reenrollment as ReenrollmentPolicy,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}

/**
 * Whether the account is gone: accounts are the identity part's, and its deletion reaches this
 * service on the accounts topic. The callers (the gateway, the CLI) checked the account there.
 */
export async function accountDeleted(db: Db, accountId: string): Promise<boolean> {
  return (await db.accountState.count({ where: { accountId, deletedAt: { not: null } } })) > 0;
}

export async function countPlaybooks(db: Pick<Db, 'playbook'>, accountId: string): Promise<number> {
  return db.playbook.count({ where: { accountId } });
}

/**
 * The account's catalog as every reader sees it ($1 the account, $2 its cap of names): the folded
 * names (event_names) with the changes not folded yet (event_name_deltas), in one snapshot (a fold
 * moves rows from one to the other); of the names only pending, those the fold will add: while the
 * cap leaves room, earliest first seen first (foldCatalog admits them in the same order).
 */
const CATALOG = `WITH c AS (
    SELECT name, min(first_seen_at) AS first_seen_at, max(last_seen_at) AS last_seen_at, sum(count)::bigint AS count, bool_or(folded) AS folded FROM (
      SELECT name, first_seen_at, last_seen_at, count, true AS folded FROM event_names WHERE account_id = $1::uuid
      UNION ALL
      SELECT name, first_seen_at, last_seen_at, count, false FROM event_name_deltas WHERE account_id = $1::uuid) u
    GROUP BY name),
  ranked AS (
    SELECT c.*, count(*) FILTER (WHERE folded) OVER () AS have,
      row_number() OVER (PARTITION BY folded ORDER BY first_seen_at, name) AS rank
    FROM c),
  catalog AS (SELECT name, first_seen_at, last_seen_at, count FROM ranked WHERE folded OR have + rank <= $2::int)`;

type CatalogRow = { name: string; first_seen_at: Date | string; last_seen_at: Date | string; count: bigint | number | string };
const toEntry = (r: CatalogRow): CatalogEntry => ({
  name: r.name,
  firstSeenAt: new Date(r.first_seen_at),
  lastSeenAt: new Date(r.last_seen_at),
  count: Number(r.count),
});

/** Which of the names are in the account's catalog (with `maxNames` its cap). */
export async function namesInCatalog(db: Pick<Db, '$queryRawUnsafe'>, accountId: string, names: string[], maxNames: number): Promise<Set<string>> {
  const rows = await db.$queryRawUnsafe<{ name: string }[]>(`${CATALOG} SELECT name FROM catalog WHERE name = ANY($3::text[])`, accountId, maxNames, names);
  return new Set(rows.map((r) => r.name));
}

/** How many names the account's catalog holds (at most `maxNames`). */
export async function catalogSize(db: Pick<Db, '$queryRawUnsafe'>, accountId: string, maxNames: number): Promise<number> {
  const [row] = await db.$queryRawUnsafe<{ size: number }[]>(`${CATALOG} SELECT count(*)::int AS size FROM catalog`, accountId, maxNames);
  return row?.size ?? 0;
}

export async function findCatalogRefusals(db: Pick<Db, '$queryRawUnsafe'>, accountId: string): Promise<CatalogRefusals | null> {
  const [row] = await db.$queryRawUnsafe<{ events: bigint; last_name: string; first_at: Date; last_at: Date }[]>(
    `SELECT events, last_name, first_at, last_at FROM catalog_refusals WHERE account_id = $1::uuid`,
    accountId,
  );
  return row ? { events: Number(row.events), lastName: row.last_name, firstAt: new Date(row.first_at), lastAt: new Date(row.last_at) } : null;
}

export async function insertPlaybook(
  db: Pick<Db, 'playbook'>,
  input: { accountId: string; name: string; triggers: string[]; exits: string[]; reenrollment?: ReenrollmentPolicy },
): Promise<PlaybookView> {
  const { accountId, name, triggers, exits, reenrollment } = input;
  const row = await db.playbook.create({
    data: {
      accountId,
      name,
      ...(reenrollment === undefined ? {} : { reenrollment }),
      triggers: { create: triggers.map((eventName) => ({ accountId, eventName })) },
      exits: { create: exits.map((eventName) => ({ accountId, eventName })) },
    },
    select: playbookSelect,
  });
  return toView(row);
}

export async function findPlaybooks(db: Db, accountId: string): Promise<PlaybookView[]> {
  const rows = await db.playbook.findMany({ where: { accountId }, select: playbookSelect, orderBy: { createdAt: 'asc' } });
  return rows.map(toView);
}

export async function findPlaybook(db: Db, accountId: string, playbookId: string): Promise<PlaybookView | null> {
  const row = await db.playbook.findFirst({ where: { id: playbookId, accountId }, select: playbookSelect });
  return row ? toView(row) : null;
}

export async function findEnrollments(db: Db, playbookId: string): Promise<EnrollmentView[]> {
  const rows = await db.enrollment.findMany({
    where: { playbookId },
    select: { email: true, status: true, startedAt: true, startedBy: true, stoppedAt: true, stoppedBy: true },
    orderBy: [{ startedAt: 'asc' }, { id: 'asc' }],
  });
  return rows.map((r) => ({ ...r, status: r.status as EnrollmentView['status'] }));
}

/** The whole catalog by name (bounded by its cap): the CLI's and the tests' view. */
export async function findCatalog(db: Pick<Db, '$queryRawUnsafe'>, accountId: string, maxNames: number): Promise<CatalogEntry[]> {
  const rows = await db.$queryRawUnsafe<CatalogRow[]>(`${CATALOG} SELECT * FROM catalog ORDER BY name`, accountId, maxNames);
  return rows.map(toEntry);
}

/** One page of the catalog by name, strictly after `after`, with the catalog's size. */
export async function findCatalogPage(
  db: Pick<Db, '$queryRawUnsafe'>,
  accountId: string,
  { maxNames, limit, after }: { maxNames: number; limit: number; after: string | null },
): Promise<{ entries: CatalogEntry[]; size: number }> {
  const [row] = await db.$queryRawUnsafe<{ size: number; items: CatalogRow[] | null }[]>(
    `${CATALOG}, page AS (SELECT * FROM catalog WHERE $3::text IS NULL OR name > $3::text ORDER BY name LIMIT $4::int)
     SELECT (SELECT count(*) FROM catalog)::int AS size, (SELECT json_agg(page ORDER BY name) FROM page) AS items`,
    accountId,
    maxNames,
    after,
    limit,
  );
  return { entries: (row?.items ?? []).map(toEntry), size: row?.size ?? 0 };
}

/** Applies the given changes (lists replace) in one transaction; null when the playbook is not the account's. */
export async function changePlaybook(
  db: Db,
  accountId: string,
  playbookId: string,
  changes: { name?: string; triggers?: string[]; exits?: string[]; reenrollment?: ReenrollmentPolicy },
): Promise<PlaybookView | null> {
  const { name, triggers, exits, reenrollment } = changes;
  // Nothing to change: answer as it is, updatedAt included.
  if (name === undefined && triggers === undefined && exits === undefined && reenrollment === undefined) return findPlaybook(db, accountId, playbookId);
  return db.$transaction(async (tx) => {
    const { count } = await tx.playbook.updateMany({
      where: { id: playbookId, accountId },
      data: { updatedAt: new Date(), ...(name === undefined ? {} : { name }), ...(reenrollment === undefined ? {} : { reenrollment }) },
    });
    if (count === 0) return null;
    if (triggers) {
      await tx.playbookTrigger.deleteMany({ where: { playbookId } });
      await tx.playbookTrigger.createMany({ data: triggers.map((eventName) => ({ playbookId, accountId, eventName })) });
    }
    if (exits) {
      await tx.playbookExit.deleteMany({ where: { playbookId } });
      await tx.playbookExit.createMany({ data: exits.map((eventName) => ({ playbookId, accountId, eventName })) });
    }
    return toView(await tx.playbook.findUniqueOrThrow({ where: { id: playbookId }, select: playbookSelect }));
  });
}

/** Deletes the playbook with its triggers, exits and enrollments (cascade); false when it is not the account's. */
export async function removePlaybook(db: Db, accountId: string, playbookId: string): Promise<boolean> {
  const { count } = await db.playbook.deleteMany({ where: { id: playbookId, accountId } });
  return count === 1;
}

/** One page of enrollments, newest first (startedAt desc, id desc), strictly after `after`. */
export async function findEnrollmentPage(
  db: Db,
  playbookId: string,
  { status, limit, after }: { status?: 'active' | 'stopped'; limit: number; after: { at: Date; id: string } | null },
): Promise<EnrollmentItem[]> {
  const page = newestFirstPage('startedAt', { limit, after });
  const rows = await db.enrollment.findMany({
    ...page,
    where: { playbookId, ...(status ? { status } : {}), ...page.where },
    select: { id: true, email: true, status: true, startedAt: true, startedBy: true, stoppedAt: true, stoppedBy: true },
  });
  return rows.map((r) => ({ ...r, status: r.status as EnrollmentItem['status'] }));
}

/** The playbooks opted in to each of the entries (as triggers and as exits), by name then id. */
export async function withUsage(db: Db, accountId: string, entries: CatalogEntry[]): Promise<CatalogUsage[]> {
  if (entries.length === 0) return [];
  const names = entries.map((e) => e.name);
  const [triggers, exits] = await Promise.all([
    db.playbookTrigger.findMany({
      where: { accountId, eventName: { in: names } },
      select: { eventName: true, playbook: { select: { id: true, name: true } } },
    }),
    db.playbookExit.findMany({ where: { accountId, eventName: { in: names } }, select: { eventName: true, playbook: { select: { id: true, name: true } } } }),
  ]);
  const group = (rows: { eventName: string; playbook: PlaybookRef }[]) => {
    const map = new Map<string, PlaybookRef[]>();
    for (const { eventName, playbook } of rows) map.set(eventName, [...(map.get(eventName) ?? []), playbook]);
    for (const list of map.values()) list.sort((a, b) => a.name.localeCompare(b.name) || a.id.localeCompare(b.id));
    return map;
  };
  const [triggering, exiting] = [group(triggers), group(exits)];
  return entries.map((e) => ({ ...e, triggers: triggering.get(e.name) ?? [], exits: exiting.get(e.name) ?? [] }));
}

/** The management use cases' store: the functions above, bound to `db`. */
export function createPlaybookStore(db: Db): PlaybookStore {
  return {
    accountDeleted: (accountId) => accountDeleted(db, accountId),
    namesInCatalog: (accountId, names, maxNames) => namesInCatalog(db, accountId, names, maxNames),
    catalogSize: (accountId, maxNames) => catalogSize(db, accountId, maxNames),
    insertPlaybookUnderCap: (input, maxPerAccount) =>
      db.$transaction(async (tx) => {
        await lockAccountFor(tx, 'playbooks', input.accountId);
        if ((await countPlaybooks(tx, input.accountId)) >= maxPerAccount) return null;
        return insertPlaybook(tx, input);
      }),
    findPlaybook: (accountId, playbookId) => findPlaybook(db, accountId, playbookId),
    findPlaybooks: (accountId) => findPlaybooks(db, accountId),
    changePlaybook: (accountId, playbookId, changes) => changePlaybook(db, accountId, playbookId, changes),
    removePlaybook: (accountId, playbookId) => removePlaybook(db, accountId, playbookId),
    findEnrollments: (playbookId) => findEnrollments(db, playbookId),
    findEnrollmentPage: (playbookId, query) => findEnrollmentPage(db, playbookId, query),
    findCatalog: (accountId, maxNames) => findCatalog(db, accountId, maxNames),
    findCatalogPage: (accountId, query) => findCatalogPage(db, accountId, query),
    findCatalogRefusals: (accountId) => findCatalogRefusals(db, accountId),
    withUsage: (accountId, entries) => withUsage(db, accountId, entries),
  };
}
