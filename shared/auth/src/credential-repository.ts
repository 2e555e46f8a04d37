// Accounts, event tokens and API keys in Postgres: creation returns the plain value once.
import type { Db } from '@glimpse/db/identity';
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
export async function createAccount(
  db: Db,
  name: string,
  { workflows = true }: { workflows?: boolean } = {},
): Promise<{ id: string; name: string; workflows: boolean }> {
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

/** Caps of an account's credentials: the active ones (not revoked) of each kind, and the revoked ones kept for the lists. */
export interface CredentialCaps {
  /** Active event tokens an account may have (EVENT_TOKENS_PER_ACCOUNT in the gateway). */
  eventTokensPerAccount: number;
  /** Active API keys an account may have (API_KEYS_PER_ACCOUNT in the gateway). */
  apiKeysPerAccount: number;
  /** Revoked credentials of each kind kept (the most recently revoked); older ones are deleted when one is created. */
  revokedKept: number;
}

export const DEFAULT_CREDENTIAL_CAPS: Readonly<CredentialCaps> = { eventTokensPerAccount: 50, apiKeysPerAccount: 50, revokedKept: 100 };

const KINDS = {
  event_token: { table: 'event_tokens', noun: 'event tokens', cap: (c: CredentialCaps) => c.eventTokensPerAccount },
  api_key: { table: 'api_keys', noun: 'API keys', cap: (c: CredentialCaps) => c.apiKeysPerAccount },
} as const;

type Tx = Parameters<Parameters<Db['$transaction']>[0]>[0];

/**
 * Creates a credential under its cap, atomically: the account row is locked (FOR NO KEY UPDATE:
 * creations of one account queue, while inserts referencing the account elsewhere do not wait),
 * so concurrent creations count one after another and never pass the cap together. The oldest
 * revoked credentials of the kind beyond `revokedKept` are deleted in the same transaction, so an
 * account's rows stay bounded however often it creates and revokes.
 */
async function createCredential(
  db: Db,
  kind: 'event_token' | 'api_key',
  accountId: string,
  caps: Partial<CredentialCaps>,
  insert: (tx: Tx, fields: { accountId: string; prefix: string; hash: string }) => Promise<{ id: string; createdAt: Date }>,
): Promise<CreatedCredential> {
  if (!isUuid(accountId)) throw new AppError('not_found', `account ${accountId} does not exist`);
  const { table, noun, cap } = KINDS[kind];
  // A cap given as undefined keeps its default.
  const all = { ...DEFAULT_CREDENTIAL_CAPS, ...Object.fromEntries(Object.entries(caps).filter(([, v]) => v !== undefined)) } as CredentialCaps;
  const max = cap(all);
  return db.$transaction(async (tx) => {
    const locked = await tx.$queryRawUnsafe<{ id: string }[]>(`SELECT id::text AS id FROM accounts WHERE id = $1::uuid FOR NO KEY UPDATE`, accountId);
    if (locked.length === 0) throw new AppError('not_found', `account ${accountId} does not exist`);
    const [row] = await tx.$queryRawUnsafe<{ n: number }[]>(
      `SELECT count(*)::int AS n FROM ${table} WHERE account_id = $1::uuid AND revoked_at IS NULL`,
      accountId,
    );
    if ((row?.n ?? 0) >= max) {
      throw new AppError('limit_reached', `an account has at most ${max} active ${noun}; revoke one first`);
    }
    const { plain, prefix, hash } = generateCredential(kind);
    const created = await insert(tx, { accountId, prefix, hash });
    await tx.$executeRawUnsafe(
      `DELETE FROM ${table} WHERE id IN (
         SELECT id FROM ${table} WHERE account_id = $1::uuid AND revoked_at IS NOT NULL ORDER BY revoked_at DESC, id DESC OFFSET $2::int)`,
      accountId,
      all.revokedKept,
    );
    return { id: created.id, prefix, secret: plain, createdAt: created.createdAt };
  });
}

/** A new event token, unless the account has its cap of active ones (409 limit_reached). */
export async function createEventToken(db: Db, accountId: string, caps: Partial<CredentialCaps> = {}): Promise<CreatedCredential> {
  return createCredential(db, 'event_token', accountId, caps, (tx, data) => tx.eventToken.create({ data, select: { id: true, createdAt: true } }));
}

/** A new API key with the scopes, unless the account has its cap of active ones (409 limit_reached). */
export async function createApiKey(db: Db, accountId: string, scopes: Scope[], caps: Partial<CredentialCaps> = {}): Promise<CreatedCredential> {
  return createCredential(db, 'api_key', accountId, caps, (tx, data) => tx.apiKey.create({ data: { ...data, scopes }, select: { id: true, createdAt: true } }));
}

/** Revokes a credential of the account; another account's id is not found, never revoked. */
export async function revokeCredential(db: Db, kind: 'event_token' | 'api_key', accountId: string, id: string): Promise<void> {
  // A malformed id names nothing; checked here so it never reaches Postgres as a uuid.
  if (!isUuid(id)) throw new AppError('not_found', `${kind.replace('_', ' ')} ${id} does not exist in account ${accountId}`);
  const where = { id, accountId, revokedAt: null };
  const data = { revokedAt: new Date() };
  const { count } = kind === 'event_token' ? await db.eventToken.updateMany({ where, data }) : await db.apiKey.updateMany({ where, data });
  if (count === 0) {
    const exists =
      kind === 'event_token'
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

/** A page query of a list newest first: at most `limit` items strictly after `after` (the last item of the previous page). */
export interface CredentialPageQuery {
  limit: number;
  after: { at: Date; id: string } | null;
}

export interface CredentialPage<T> {
  items: T[];
  /** The last item of this page when more follow, else null. */
  next: { at: Date; id: string } | null;
}

const after = (cursor: CredentialPageQuery['after']) =>
  cursor ? { OR: [{ createdAt: { lt: cursor.at } }, { createdAt: cursor.at, id: { lt: cursor.id } }] } : {};

function toPage<T extends { id: string; createdAt: Date }>(rows: T[], limit: number): CredentialPage<T> {
  const items = rows.slice(0, limit);
  const last = items[items.length - 1];
  return { items, next: rows.length > limit && last ? { at: last.createdAt, id: last.id } : null };
}

/** A page of the account's event tokens, revoked ones included, newest first. */
export async function eventTokenPage(db: Db, accountId: string, { limit, after: cursor }: CredentialPageQuery): Promise<CredentialPage<EventTokenSummary>> {
  const rows = await db.eventToken.findMany({ where: { accountId, ...after(cursor) }, select: summary, orderBy: [...newestFirst], take: limit + 1 });
  return toPage(rows, limit);
}

/** A page of the account's API keys, revoked ones included, newest first. */
export async function apiKeyPage(db: Db, accountId: string, { limit, after: cursor }: CredentialPageQuery): Promise<CredentialPage<ApiKeySummary>> {
  const rows = await db.apiKey.findMany({
    where: { accountId, ...after(cursor) },
    select: { ...summary, scopes: true },
    orderBy: [...newestFirst],
    take: limit + 1,
  });
  return toPage(rows, limit);
}
