// Playbook management rules. Rule 3 (api.md §4.3): a playbook can be triggered only by an event name
// the account has already sent; exits may name any valid event name. Reads and writes go through
// the PlaybookStore (playbook-store.ts; data/playbook-repository.ts implements it).
import { AppError } from '@glimpse/errors';
import { cutPage } from '@glimpse/http';
import { EVENT_NAME_PATTERN } from '@glimpse/messaging';
import type { PlaybookChanges } from './playbook-input.js';
import { isUuid } from '@glimpse/validation';
import { REENROLLMENT_POLICIES, type ReenrollmentPolicy } from './decide-effects.js';
import { assertListCap, DEFAULT_LIMITS } from './limits.js';
import type { CatalogEntry, CatalogRefusals, CatalogUsage, EnrollmentItem, EnrollmentView, PlaybookStore, PlaybookView } from './playbook-store.js';

function assertUuid(value: string, what: string): void {
  if (!isUuid(value)) throw new AppError('not_found', `${what} ${value} does not exist`);
}

async function assertAccount(store: PlaybookStore, accountId: string): Promise<void> {
  assertUuid(accountId, 'account');
  if (await store.accountDeleted(accountId)) throw new AppError('not_found', `account ${accountId} does not exist`);
}

export function validateEventNames(names: string[], field: 'trigger' | 'exit' | 'event'): string[] {
  for (const name of names) {
    if (!EVENT_NAME_PATTERN.test(name)) {
      throw new AppError('invalid_request', `${field} "${name}" is not a valid event name: 1 to 64 letters, digits, _ . : -`);
    }
  }
  return [...new Set(names)];
}

/** The CLI calls these use cases directly: the policy is checked here too, not only by the API's schema. */
function validPolicy(policy: string | undefined): ReenrollmentPolicy | undefined {
  if (policy === undefined) return undefined;
  if (!(REENROLLMENT_POLICIES as readonly string[]).includes(policy)) {
    throw new AppError('invalid_request', `reenrollment must be one of ${REENROLLMENT_POLICIES.join(', ')}`);
  }
  return policy as ReenrollmentPolicy;
}

function validName(name: string): string {
  const trimmed = name.trim();
  if (trimmed.length === 0 || trimmed.length > 200) throw new AppError('invalid_request', 'name must be 1 to 200 characters');
  return trimmed;
}

/**
 * Rule 3: every trigger must already be in the account's catalog; the error names the first that is
 * not. When the catalog is full (it holds `maxNames`), a name not in it may have been refused by the
 * cap rather than never sent: then it is 409 limit_reached, naming the cap.
 */
async function assertTriggersInCatalog(store: PlaybookStore, accountId: string, triggers: string[], maxNames: number): Promise<void> {
  if (triggers.length === 0) return;
  const known = await store.namesInCatalog(accountId, triggers, maxNames);
  const unknown = triggers.find((t) => !known.has(t));
  if (unknown === undefined) return;
  if ((await store.catalogSize(accountId, maxNames)) >= maxNames) {
    throw new AppError(
      'limit_reached',
      `trigger "${unknown}" is not in the event catalog, which is full: an account's catalog holds at most ${maxNames} event names, so a name first sent after it filled is applied but not added, and cannot trigger a playbook (it can still be an exit)`,
    );
  }
  throw new AppError(
    'unknown_event_name',
    `trigger "${unknown}" has never been sent to this account; a playbook can only be triggered by an event name already in the catalog (send it once first)`,
  );
}

const playbookNotFound = (accountId: string, playbookId: string) => new AppError('not_found', `playbook ${playbookId} does not exist in account ${accountId}`);

async function ownPlaybook(store: PlaybookStore, accountId: string, playbookId: string): Promise<PlaybookView> {
  assertUuid(playbookId, 'playbook');
  const playbook = await store.findPlaybook(accountId, playbookId);
  if (!playbook) throw playbookNotFound(accountId, playbookId);
  return playbook;
}

/** Playbooks one account may have unless the service says otherwise (PLAYBOOKS_PER_ACCOUNT). */
export const DEFAULT_PLAYBOOKS_PER_ACCOUNT = DEFAULT_LIMITS.playbooksPerAccount;

/** The caps a playbook's creation or change is held to (the service's configuration; the defaults otherwise). */
export interface PlaybookCaps {
  maxPerAccount?: number;
  maxTriggers?: number;
  maxExits?: number;
  maxCatalogNames?: number;
}

function capsOf(caps: PlaybookCaps) {
  return {
    maxPerAccount: caps.maxPerAccount ?? DEFAULT_LIMITS.playbooksPerAccount,
    maxTriggers: caps.maxTriggers ?? DEFAULT_LIMITS.triggersPerPlaybook,
    maxExits: caps.maxExits ?? DEFAULT_LIMITS.exitsPerPlaybook,
    maxCatalogNames: caps.maxCatalogNames ?? DEFAULT_LIMITS.catalogNamesPerAccount,
  };
}

export async function createPlaybook(
  store: PlaybookStore,
  input: { accountId: string; name: string; triggers?: string[]; exits?: string[]; reenrollment?: string },
  caps: PlaybookCaps = {},
): Promise<PlaybookView> {
  const { maxPerAccount, maxTriggers, maxExits, maxCatalogNames } = capsOf(caps);
  const name = validName(input.name);
  const triggers = validateEventNames(input.triggers ?? [], 'trigger');
  const exits = validateEventNames(input.exits ?? [], 'exit');
  assertListCap(triggers, maxTriggers, 'triggers');
  assertListCap(exits, maxExits, 'exits');
  const reenrollment = validPolicy(input.reenrollment);
  await assertAccount(store, input.accountId);
  await assertTriggersInCatalog(store, input.accountId, triggers, maxCatalogNames);
  // Every playbook costs the consumer a row per opted-in name: an account's playbooks are bounded.
  // Counted and inserted under the account's lock, so concurrent creations never pass the cap together.
  const created = await store.insertPlaybookUnderCap({ accountId: input.accountId, name, triggers, exits, reenrollment }, maxPerAccount);
  if (!created) throw new AppError('limit_reached', `this account already has ${maxPerAccount} playbooks, the most it may have; delete one first`);
  return created;
}

export async function getPlaybook(store: PlaybookStore, accountId: string, playbookId: string): Promise<PlaybookView> {
  return ownPlaybook(store, accountId, playbookId);
}

/** PATCH semantics: only the given fields change; a given list replaces the old one (opting in or out = adding or removing a name). */
export async function updatePlaybook(
  store: PlaybookStore,
  input: { accountId: string; playbookId: string } & PlaybookChanges,
  caps: PlaybookCaps = {},
): Promise<PlaybookView> {
  const { accountId, playbookId } = input;
  const { maxTriggers, maxExits, maxCatalogNames } = capsOf(caps);
  const changes: PlaybookChanges = {};
  if (input.name !== undefined) changes.name = validName(input.name);
  if (input.triggers !== undefined) assertListCap((changes.triggers = validateEventNames(input.triggers, 'trigger')), maxTriggers, 'triggers');
  if (input.exits !== undefined) assertListCap((changes.exits = validateEventNames(input.exits, 'exit')), maxExits, 'exits');
  if (input.reenrollment !== undefined) changes.reenrollment = validPolicy(input.reenrollment);
  await ownPlaybook(store, accountId, playbookId);
  // A change replaces the lists in one transaction that first updates the playbook's row, so
  // concurrent changes of one playbook apply one after the other: its lists never exceed their caps.
  await assertTriggersInCatalog(store, accountId, changes.triggers ?? [], maxCatalogNames);
  const updated = await store.changePlaybook(accountId, playbookId, changes);
  if (!updated) throw playbookNotFound(accountId, playbookId);
  return updated;
}

/** Deletes the playbook and its enrollments. */
export async function deletePlaybook(store: PlaybookStore, accountId: string, playbookId: string): Promise<void> {
  assertUuid(playbookId, 'playbook');
  if (!(await store.removePlaybook(accountId, playbookId))) throw playbookNotFound(accountId, playbookId);
}

export async function listPlaybooks(store: PlaybookStore, accountId: string): Promise<PlaybookView[]> {
  await assertAccount(store, accountId);
  return store.findPlaybooks(accountId);
}

export async function listEnrollments(store: PlaybookStore, accountId: string, playbookId: string): Promise<EnrollmentView[]> {
  await assertAccount(store, accountId);
  await ownPlaybook(store, accountId, playbookId);
  return store.findEnrollments(playbookId);
}

export interface EnrollmentPageQuery {
  status?: 'active' | 'stopped';
  limit: number;
  /** The last enrollment of the previous page (its startedAt and id). */
  after: { at: Date; id: string } | null;
}

/** A page of a playbook's enrollments, newest first; `next` names its last item when more follow. */
export async function enrollmentPage(
  store: PlaybookStore,
  accountId: string,
  playbookId: string,
  { status, limit, after }: EnrollmentPageQuery,
): Promise<{ items: EnrollmentItem[]; next: { at: Date; id: string } | null }> {
  await ownPlaybook(store, accountId, playbookId);
  const rows = await store.findEnrollmentPage(playbookId, { status, limit: limit + 1, after });
  return cutPage(rows, limit, (last) => ({ at: last.startedAt, id: last.id }));
}

/** The whole catalog by name (at most its cap of names): the CLI's view. */
export async function eventCatalog(
  store: PlaybookStore,
  accountId: string,
  { maxNames = DEFAULT_LIMITS.catalogNamesPerAccount }: { maxNames?: number } = {},
): Promise<CatalogEntry[]> {
  await assertAccount(store, accountId);
  return store.findCatalog(accountId, maxNames);
}

/** The catalog with, for each name, the playbooks it triggers and the playbooks it exits. */
export async function eventCatalogUsage(
  store: PlaybookStore,
  accountId: string,
  { maxNames = DEFAULT_LIMITS.catalogNamesPerAccount }: { maxNames?: number } = {},
): Promise<CatalogUsage[]> {
  assertUuid(accountId, 'account');
  return store.withUsage(accountId, await store.findCatalog(accountId, maxNames));
}

export interface CatalogPage {
  items: CatalogUsage[];
  /** The last name of this page when more follow, else null. */
  next: string | null;
  /** Names in the catalog, its cap, and whether it is full (a new name is then applied but not added). */
  size: number;
  maxNames: number;
  full: boolean;
  /** Since the catalog filled: events whose new name was not added, and the last such name. */
  refused: CatalogRefusals | null;
}

/** A page of the catalog by name (after the name `after`), each name with its playbooks, and how full the catalog is. */
export async function eventCatalogPage(
  store: PlaybookStore,
  accountId: string,
  { limit, after, maxNames = DEFAULT_LIMITS.catalogNamesPerAccount }: { limit: number; after: string | null; maxNames?: number },
): Promise<CatalogPage> {
  assertUuid(accountId, 'account');
  const [{ entries, size }, refused] = await Promise.all([
    store.findCatalogPage(accountId, { maxNames, limit: limit + 1, after }),
    store.findCatalogRefusals(accountId),
  ]);
  const { items: page, next } = cutPage(entries, limit, (last) => last.name);
  return {
    items: await store.withUsage(accountId, page),
    next,
    size,
    maxNames,
    full: size >= maxNames,
    refused,
  };
}
