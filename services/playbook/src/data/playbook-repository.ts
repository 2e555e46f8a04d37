// Playbooks, their triggers and exits, enrollments and the event-name catalog, as plain objects.
import type { Db } from '@glimpse/db';

export interface PlaybookView {
  id: string;
  name: string;
  triggers: string[];
  exits: string[];
  createdAt: Date;
}

export interface EnrollmentView {
  email: string;
  status: 'active' | 'stopped';
  startedAt: Date;
  startedBy: string;
  stoppedAt: Date | null;
  stoppedBy: string | null;
}

export interface CatalogEntry {
  name: string;
  firstSeenAt: Date;
  lastSeenAt: Date;
  count: number;
}

const playbookSelect = {
  id: true,
  name: true,
  createdAt: true,
  triggers: { select: { eventName: true }, orderBy: { eventName: 'asc' } },
  exits: { select: { eventName: true }, orderBy: { eventName: 'asc' } },
} as const;

type PlaybookRow = { id: string; name: string; createdAt: Date; triggers: { eventName: string }[]; exits: { eventName: string }[] };

function toView(row: PlaybookRow): PlaybookView {
  return { id: row.id, name: row.name, createdAt: row.createdAt, triggers: row.triggers.map((t) => t.eventName), exits: row.exits.map((e) => e.eventName) };
}

export async function accountExists(db: Db, accountId: string): Promise<boolean> {
  return (await db.account.count({ where: { id: accountId } })) > 0;
}

export async function namesInCatalog(db: Db, accountId: string, names: string[]): Promise<Set<string>> {
  const rows = await db.eventName.findMany({ where: { accountId, name: { in: names } }, select: { name: true } });
  return new Set(rows.map((r) => r.name));
}

export async function insertPlaybook(db: Db, input: { accountId: string; name: string; triggers: string[]; exits: string[] }): Promise<PlaybookView> {
  const { accountId, name, triggers, exits } = input;
  const row = await db.playbook.create({
    data: {
      accountId,
      name,
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
  const rows = await db.eventName.findMany({ where: { accountId }, orderBy: { name: 'asc' } });
  return rows.map((r) => ({ name: r.name, firstSeenAt: r.firstSeenAt, lastSeenAt: r.lastSeenAt, count: Number(r.count) }));
}
