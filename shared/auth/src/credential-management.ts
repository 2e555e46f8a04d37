// Event tokens and API keys as their owners manage them: creation under the account's caps (the
// plain value returned once), revocation, and the lists. The rules live here; the rows are read and
// written through a CredentialStore (data/credential-store.ts in Postgres; wiring.ts binds the two).
import { AppError } from '@glimpse/errors';
import { isUuid } from '@glimpse/validation';
import { generateCredential, type CredentialKind, type Scope } from './credentials.js';

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

/** A position in a list newest first: the last item of the previous page. */
export interface CredentialCursor {
  at: Date;
  id: string;
}

/** A page query of a list newest first: at most `limit` items strictly after `after` (the last item of the previous page). */
export interface CredentialPageQuery {
  limit: number;
  after: CredentialCursor | null;
}

export interface CredentialPage<T> {
  items: T[];
  /** The last item of this page when more follow, else null. */
  next: CredentialCursor | null;
}

/** The new credential's stored fields (never the plain value). */
export interface NewCredentialRow {
  accountId: string;
  prefix: string;
  hash: string;
}

/** The writes of one credential creation, all in one transaction. */
export interface CredentialTransaction {
  /**
   * Locks the account's row until the transaction ends, so creations of one account queue (and
   * count one after another); false when there is no such account.
   */
  lockAccount(accountId: string): Promise<boolean>;
  /** The account's credentials of the kind that are not revoked. */
  countActive(kind: CredentialKind, accountId: string): Promise<number>;
  insertEventToken(row: NewCredentialRow): Promise<{ id: string; createdAt: Date }>;
  insertApiKey(row: NewCredentialRow & { scopes: Scope[] }): Promise<{ id: string; createdAt: Date }>;
  /** Deletes the account's revoked credentials of the kind but the `keep` most recently revoked (revoked_at, then id, descending). */
  pruneRevoked(kind: CredentialKind, accountId: string, keep: number): Promise<void>;
}

/** Where the credentials are kept. Lists are newest first (created_at, then id, descending). */
export interface CredentialStore {
  /** Runs `work` in one transaction: committed when it resolves, rolled back when it throws. */
  transaction<T>(work: (tx: CredentialTransaction) => Promise<T>): Promise<T>;
  /** Marks the account's credential revoked at `at` unless it already is; false when nothing was marked. */
  revoke(kind: CredentialKind, accountId: string, id: string, at: Date): Promise<boolean>;
  /** Whether the account has a credential of the kind with this id, revoked or not. */
  exists(kind: CredentialKind, accountId: string, id: string): Promise<boolean>;
  /** The account's event tokens, revoked ones included; with `page`, at most `take` of them after `after`. */
  eventTokens(accountId: string, page?: { take: number; after: CredentialCursor | null }): Promise<EventTokenSummary[]>;
  /** The account's API keys, revoked ones included; with `page`, at most `take` of them after `after`. */
  apiKeys(accountId: string, page?: { take: number; after: CredentialCursor | null }): Promise<ApiKeySummary[]>;
}

const NOUN: Record<CredentialKind, string> = { event_token: 'event tokens', api_key: 'API keys' };
const CAP: Record<CredentialKind, (caps: CredentialCaps) => number> = {
  event_token: (c) => c.eventTokensPerAccount,
  api_key: (c) => c.apiKeysPerAccount,
};

/** The caps in force: the defaults, with those given (a cap given as undefined keeps its default). */
export function credentialCaps(caps: Partial<CredentialCaps>): CredentialCaps {
  return { ...DEFAULT_CREDENTIAL_CAPS, ...Object.fromEntries(Object.entries(caps).filter(([, v]) => v !== undefined)) } as CredentialCaps;
}

/**
 * Creates a credential under its cap, atomically: the account row is locked, so concurrent
 * creations count one after another and never pass the cap together. The oldest revoked
 * credentials of the kind beyond `revokedKept` are deleted in the same transaction, so an account's
 * rows stay bounded however often it creates and revokes.
 */
async function createCredential(
  store: CredentialStore,
  kind: CredentialKind,
  accountId: string,
  caps: Partial<CredentialCaps>,
  insert: (tx: CredentialTransaction, row: NewCredentialRow) => Promise<{ id: string; createdAt: Date }>,
): Promise<CreatedCredential> {
  if (!isUuid(accountId)) throw new AppError('not_found', `account ${accountId} does not exist`);
  const all = credentialCaps(caps);
  const max = CAP[kind](all);
  return store.transaction(async (tx) => {
    if (!(await tx.lockAccount(accountId))) throw new AppError('not_found', `account ${accountId} does not exist`);
    if ((await tx.countActive(kind, accountId)) >= max) {
      throw new AppError('limit_reached', `an account has at most ${max} active ${NOUN[kind]}; revoke one first`);
    }
    const { plain, prefix, hash } = generateCredential(kind);
    const created = await insert(tx, { accountId, prefix, hash });
    await tx.pruneRevoked(kind, accountId, all.revokedKept);
    return { id: created.id, prefix, secret: plain, createdAt: created.createdAt };
  });
}

/** A new event token, unless the account has its cap of active ones (409 limit_reached). */
export async function createEventToken(store: CredentialStore, accountId: string, caps: Partial<CredentialCaps> = {}): Promise<CreatedCredential> {
  return createCredential(store, 'event_token', accountId, caps, (tx, row) => tx.insertEventToken(row));
}

/** A new API key with the scopes, unless the account has its cap of active ones (409 limit_reached). */
export async function createApiKey(store: CredentialStore, accountId: string, scopes: Scope[], caps: Partial<CredentialCaps> = {}): Promise<CreatedCredential> {
  return createCredential(store, 'api_key', accountId, caps, (tx, row) => tx.insertApiKey({ ...row, scopes }));
}

/** Revokes a credential of the account; another account's id is not found, never revoked; revoking twice is no error. */
export async function revokeCredential(store: CredentialStore, kind: CredentialKind, accountId: string, id: string): Promise<void> {
  const notFound = () => new AppError('not_found', `${kind.replace('_', ' ')} ${id} does not exist in account ${accountId}`);
  // A malformed id names nothing; checked here so it never reaches Postgres as a uuid.
  if (!isUuid(id)) throw notFound();
  if (await store.revoke(kind, accountId, id, new Date())) return;
  if (!(await store.exists(kind, accountId, id))) throw notFound();
}

/** The account's event tokens, revoked ones included, newest first; never the hash. */
export async function listEventTokens(store: CredentialStore, accountId: string): Promise<EventTokenSummary[]> {
  return store.eventTokens(accountId);
}

/** The account's API keys, revoked ones included, newest first; never the hash. */
export async function listApiKeys(store: CredentialStore, accountId: string): Promise<ApiKeySummary[]> {
  return store.apiKeys(accountId);
}

/** The page of `limit` items from rows read one past it: `next` is set when that one more was there. */
function toPage<T extends { id: string; createdAt: Date }>(rows: T[], limit: number): CredentialPage<T> {
  const items = rows.slice(0, limit);
  const last = items[items.length - 1];
  return { items, next: rows.length > limit && last ? { at: last.createdAt, id: last.id } : null };
}

/** A page of the account's event tokens, revoked ones included, newest first. */
export async function eventTokenPage(
  store: CredentialStore,
  accountId: string,
  { limit, after }: CredentialPageQuery,
): Promise<CredentialPage<EventTokenSummary>> {
  return toPage(await store.eventTokens(accountId, { take: limit + 1, after }), limit);
}

/** A page of the account's API keys, revoked ones included, newest first. */
export async function apiKeyPage(store: CredentialStore, accountId: string, { limit, after }: CredentialPageQuery): Promise<CredentialPage<ApiKeySummary>> {
  return toPage(await store.apiKeys(accountId, { take: limit + 1, after }), limit);
}
