// Accounts, event tokens and API keys in Postgres: creation returns the plain value once.
import type { Db } from '@glimpse/db';
import { AppError } from '@glimpse/errors';
import { generateCredential, type Scope } from './credentials.js';
import { isUuid } from '@glimpse/validation';
import { recordAccountEvent } from './account-events.js';


export interface CreatedCredential {
  id: string;
  prefix: string;
  /** The plain value: shown to its owner once, never stored. */
  secret: string;
  createdAt: Date;
}

export interface EventTokenSummary {
  id: string;
  prefix: string;
  createdAt: Date;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
}

export interface ApiKeySummary extends EventTokenSummary {
  scopes: string[];
}

/**
 * Creates the account and its `account.created` outbox row in one transaction. `workflows`: the
 * workflows add-on (events, event tokens, playbooks, page rules). This library grants it unless
 * told not to (the tests, benches and the demo seed build on it); the operator's
 * `glimpse account create`, the one way an installation creates accounts, grants it only with
 * --workflows, and a row inserted any other way has none (the column's default).
 */
export async function createAccount(db: Db, name: string, { workflows = true }: { workflows?: boolean } = {}): Promise<{ id: string; name: string; workflows: boolean }> {
  return db.$transaction(async (tx) => {
    const account = await tx.account.create({ data: { name, workflows }, select: { id: true, name: true, createdAt: true } });
    await recordAccountEvent(tx, account.id, 'account.created', account.createdAt);
    return { id: account.id, name: account.name, workflows };
  });
}

/**
 * Deletes the account (its event tokens and API keys go with it) and writes `account.deleted` in
 * the same transaction; the other services drop their data of it when the event reaches them.
 */
export async function deleteAccount(db: Db, id: string): Promise<{ id: string; deletedAt: Date }> {
  if (!isUuid(id)) throw new AppError('not_found', `account ${id} does not exist`);
  // The topic's key: one spelling per account, or compaction would keep both.
  const accountId = id.toLowerCase();
  return db.$transaction(async (tx) => {
    const { count } = await tx.account.deleteMany({ where: { id: accountId } });
    if (count === 0) throw new AppError('not_found', `account ${accountId} does not exist`);
    const deletedAt = new Date();
    await recordAccountEvent(tx, accountId, 'account.deleted', deletedAt);
    return { id: accountId, deletedAt };
  });
}

/** Whether the account exists (a malformed id names none). */
export async function accountExists(db: Db, accountId: string): Promise<boolean> {
  if (!isUuid(accountId)) return false;
  return (await db.account.count({ where: { id: accountId } })) > 0;
}

async function assertAccount(db: Db, accountId: string): Promise<void> {
  if (!(await accountExists(db, accountId))) throw new AppError('not_found', `account ${accountId} does not exist`);
}

export async function createEventToken(db: Db, accountId: string): Promise<CreatedCredential> {
  await assertAccount(db, accountId);
  const { plain, prefix, hash } = generateCredential('event_token');
  const row = await db.eventToken.create({ data: { accountId, prefix, hash }, select: { id: true, createdAt: true } });
  return { id: row.id, prefix, secret: plain, createdAt: row.createdAt };
}

export async function createApiKey(db: Db, accountId: string, scopes: Scope[]): Promise<CreatedCredential> {
  await assertAccount(db, accountId);
  const { plain, prefix, hash } = generateCredential('api_key');
  const row = await db.apiKey.create({ data: { accountId, prefix, hash, scopes }, select: { id: true, createdAt: true } });
  return { id: row.id, prefix, secret: plain, createdAt: row.createdAt };
}

/** Revokes a credential of the account; another account's id is not found, never revoked. */
export async function revokeCredential(db: Db, kind: 'event_token' | 'api_key', accountId: string, id: string): Promise<void> {
  // A malformed id names nothing; checked here so it never reaches Postgres as a uuid.
  if (!isUuid(id)) throw new AppError('not_found', `${kind.replace('_', ' ')} ${id} does not exist in account ${accountId}`);
  const where = { id, accountId, revokedAt: null };
  const data = { revokedAt: new Date() };
  const { count } = kind === 'event_token' ? await db.eventToken.updateMany({ where, data }) : await db.apiKey.updateMany({ where, data });
  if (count === 0) {
    const exists = kind === 'event_token'
      ? await db.eventToken.findFirst({ where: { id, accountId }, select: { id: true } })
      : await db.apiKey.findFirst({ where: { id, accountId }, select: { id: true } });
    if (!exists) throw new AppError('not_found', `${kind.replace('_', ' ')} ${id} does not exist in account ${accountId}`);
  }
}

const summary = { id: true, prefix: true, createdAt: true, lastUsedAt: true, revokedAt: true } as const;
const newestFirst = [{ createdAt: 'desc' }, { id: 'desc' }] as const;

/** The account's event tokens, revoked ones included, newest first; never the hash. */
export async function listEventTokens(db: Db, accountId: string): Promise<EventTokenSummary[]> {
  return db.eventToken.findMany({ where: { accountId }, select: summary, orderBy: [...newestFirst] });
}

/** The account's API keys, revoked ones included, newest first; never the hash. */
export async function listApiKeys(db: Db, accountId: string): Promise<ApiKeySummary[]> {
  return db.apiKey.findMany({ where: { accountId }, select: { ...summary, scopes: true }, orderBy: [...newestFirst] });
}
