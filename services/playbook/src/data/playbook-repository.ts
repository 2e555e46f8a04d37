// Playbooks, their triggers and exits, enrollments and the event-name catalog, as plain objects.
import type { Db } from '@glimpse/db';
import type { ReenrollmentPolicy } from '../domain/decide-effects.js';

export interface PlaybookView {
  id: string;
  name: string;
  triggers: string[];
  exits: string[];
  reenrollment: ReenrollmentPolicy;
  createdAt: Date;
  updatedAt: Date;
}

export interface EnrollmentView {
  email: string;
  status: 'active' | 'stopped';
  startedAt: Date;
  startedBy: string;
  stoppedAt: Date | null;
  stoppedBy: string | null;
}

/** An enrollment as the management API pages through it. */
export interface EnrollmentItem extends EnrollmentView {
  id: string;
}

export interface CatalogEntry {
  name: string;
  firstSeenAt: Date;
  lastSeenAt: Date;
  count: number;
}

export interface PlaybookRef {
  id: string;
  name: string;
}

/** A catalog name with the playbooks that opt in to it. */
export interface CatalogUsage extends CatalogEntry {
  triggers: PlaybookRef[];
  exits: PlaybookRef[];
}

const playbookSelect = {
  id: true,
  name: true,
  reenrollment: true,
  createdAt: true,
  updatedAt: true,
  triggers: { select: { eventName: true }, orderBy: { eventName: 'asc' } },
  exits: { select: { eventName: true }, orderBy: { eventName: 'asc' } },
} as const;

type PlaybookRow = { id: string; name: string; reenrollment: string; createdAt: Date; updatedAt: Date; triggers: { eventName: string }[]; exits: { eventName: string }[] };

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

export async function countPlaybooks(db: Db, accountId: string): Promise<number> {
  return db.playbook.count({ where: { accountId } });
}

export async function namesInCatalog(db: Pick<Db, '$queryRawUnsafe'>, accountId: string, names: string[]): Promise<Set<string>> {
  // Names applied but not folded yet count too (event_name_deltas).
  const rows = await db.$queryRawUnsafe<{ name: string }[]>(
    `SELECT name FROM event_names WHERE account_id = $1::uuid AND name = ANY($2::text[])
     UNION SELECT name FROM event_name_deltas WHERE account_id = $1::uuid AND name = ANY($2::text[])`,
    accountId,
    names,
  );
  return new Set(rows.map((r) => r.name));
}

export async function insertPlaybook(
  db: Db,
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

export async function findCatalog(db: Db, accountId: string): Promise<CatalogEntry[]> {
  // The folded catalog plus the changes not folded yet, read in one snapshot (a fold moves rows from one to the other).
  const rows = await db.$queryRawUnsafe<{ name: string; first_seen_at: Date; last_seen_at: Date; count: bigint }[]>(
    `SELECT name, min(first_seen_at) AS first_seen_at, max(last_seen_at) AS last_seen_at, sum(count)::bigint AS count FROM (
       SELECT name, first_seen_at, last_seen_at, count FROM event_names WHERE account_id = $1::uuid
       UNION ALL
       SELECT name, first_seen_at, last_seen_at, count FROM event_name_deltas WHERE account_id = $1::uuid) c
     GROUP BY name ORDER BY name`,
    accountId,
  );
  return rows.map((r) => ({ name: r.name, firstSeenAt: new Date(r.first_seen_at), lastSeenAt: new Date(r.last_seen_at), count: Number(r.count) }));
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
  const rows = await db.enrollment.findMany({
    where: {
      playbookId,
      ...(status ? { status } : {}),
      ...(after ? { OR: [{ startedAt: { lt: after.at } }, { startedAt: after.at, id: { lt: after.id } }] } : {}),
    },
    select: { id: true, email: true, status: true, startedAt: true, startedBy: true, stoppedAt: true, stoppedBy: true },
    orderBy: [{ startedAt: 'desc' }, { id: 'desc' }],
    take: limit,
  });
  return rows.map((r) => ({ ...r, status: r.status as EnrollmentItem['status'] }));
}

export async function findCatalogUsage(db: Db, accountId: string): Promise<CatalogUsage[]> {
  const [entries, triggers, exits] = await Promise.all([
    findCatalog(db, accountId),
    db.playbookTrigger.findMany({ where: { accountId }, select: { eventName: true, playbook: { select: { id: true, name: true } } } }),
    db.playbookExit.findMany({ where: { accountId }, select: { eventName: true, playbook: { select: { id: true, name: true } } } }),
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
