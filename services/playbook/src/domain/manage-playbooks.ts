// Playbook management rules. Rule 3 (spec §4.3): a playbook can be triggered only by an event name
// the account has already sent; exits may name any valid event name.
import { AppError } from '@glimpse/errors';
import type { Db } from '@glimpse/db';
import { EVENT_NAME_PATTERN } from '@glimpse/messaging';
import * as repo from '../data/playbook-repository.js';
import type { PlaybookChanges } from './playbook-input.js';
import { isUuid } from '@glimpse/validation';
import { REENROLLMENT_POLICIES, type ReenrollmentPolicy } from './decide-effects.js';

export type { PlaybookView, EnrollmentView, EnrollmentItem, CatalogEntry, CatalogUsage, PlaybookRef } from '../data/playbook-repository.js';


function assertUuid(value: string, what: string): void {
  if (!isUuid(value)) throw new AppError('not_found', `${what} ${value} does not exist`);
}

async function assertAccount(db: Db, accountId: string): Promise<void> {
  assertUuid(accountId, 'account');
  if (await repo.accountDeleted(db, accountId)) throw new AppError('not_found', `account ${accountId} does not exist`);
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

/** Rule 3: every trigger must already be in the account's catalog; the error names the first that is not. */
async function assertTriggersInCatalog(db: Db, accountId: string, triggers: string[]): Promise<void> {
  if (triggers.length === 0) return;
  const known = await repo.namesInCatalog(db, accountId, triggers);
  const unknown = triggers.find((t) => !known.has(t));
  if (unknown !== undefined) {
    throw new AppError(
      'unknown_event_name',
      `trigger "${unknown}" has never been sent to this account; a playbook can only be triggered by an event name already in the catalog (send it once first)`,
    );
  }
}

const playbookNotFound = (accountId: string, playbookId: string) => new AppError('not_found', `playbook ${playbookId} does not exist in account ${accountId}`);

async function ownPlaybook(db: Db, accountId: string, playbookId: string): Promise<repo.PlaybookView> {
  assertUuid(playbookId, 'playbook');
  const playbook = await repo.findPlaybook(db, accountId, playbookId);
  if (!playbook) throw playbookNotFound(accountId, playbookId);
  return playbook;
}

/** Playbooks one account may have unless the service says otherwise (PLAYBOOKS_PER_ACCOUNT). */
export const DEFAULT_PLAYBOOKS_PER_ACCOUNT = 200;

export async function createPlaybook(
  db: Db,
  input: { accountId: string; name: string; triggers?: string[]; exits?: string[]; reenrollment?: string },
  { maxPerAccount = DEFAULT_PLAYBOOKS_PER_ACCOUNT }: { maxPerAccount?: number } = {},
): Promise<repo.PlaybookView> {
  const name = validName(input.name);
  const triggers = validateEventNames(input.triggers ?? [], 'trigger');
  const exits = validateEventNames(input.exits ?? [], 'exit');
  const reenrollment = validPolicy(input.reenrollment);
  await assertAccount(db, input.accountId);
  // Every playbook costs the consumer a row per opted-in name: an account's playbooks are bounded.
  if ((await repo.countPlaybooks(db, input.accountId)) >= maxPerAccount) {
    throw new AppError('limit_reached', `this account already has ${maxPerAccount} playbooks, the most it may have; delete one first`);
  }
  await assertTriggersInCatalog(db, input.accountId, triggers);
  return repo.insertPlaybook(db, { accountId: input.accountId, name, triggers, exits, reenrollment });
}

export async function getPlaybook(db: Db, accountId: string, playbookId: string): Promise<repo.PlaybookView> {
  return ownPlaybook(db, accountId, playbookId);
}

/** PATCH semantics: only the given fields change; a given list replaces the old one (opting in or out = adding or removing a name). */
export async function updatePlaybook(db: Db, input: { accountId: string; playbookId: string } & PlaybookChanges): Promise<repo.PlaybookView> {
  const { accountId, playbookId } = input;
  const changes: PlaybookChanges = {};
  if (input.name !== undefined) changes.name = validName(input.name);
  if (input.triggers !== undefined) changes.triggers = validateEventNames(input.triggers, 'trigger');
  if (input.exits !== undefined) changes.exits = validateEventNames(input.exits, 'exit');
  if (input.reenrollment !== undefined) changes.reenrollment = validPolicy(input.reenrollment);
  await ownPlaybook(db, accountId, playbookId);
  await assertTriggersInCatalog(db, accountId, changes.triggers ?? []);
  const updated = await repo.changePlaybook(db, accountId, playbookId, changes);
  if (!updated) throw playbookNotFound(accountId, playbookId);
  return updated;
}

/** Deletes the playbook and its enrollments. */
export async function deletePlaybook(db: Db, accountId: string, playbookId: string): Promise<void> {
  assertUuid(playbookId, 'playbook');
  if (!(await repo.removePlaybook(db, accountId, playbookId))) throw playbookNotFound(accountId, playbookId);
}

export async function listPlaybooks(db: Db, accountId: string): Promise<repo.PlaybookView[]> {
  await assertAccount(db, accountId);
  return repo.findPlaybooks(db, accountId);
}

export async function listEnrollments(db: Db, accountId: string, playbookId: string): Promise<repo.EnrollmentView[]> {
  await assertAccount(db, accountId);
  await ownPlaybook(db, accountId, playbookId);
  return repo.findEnrollments(db, playbookId);
}

export interface EnrollmentPageQuery {
  status?: 'active' | 'stopped';
  limit: number;
  /** The last enrollment of the previous page (its startedAt and id). */
  after: { at: Date; id: string } | null;
}

/** A page of a playbook's enrollments, newest first; `next` names its last item when more follow. */
export async function enrollmentPage(
  db: Db,
  accountId: string,
  playbookId: string,
  { status, limit, after }: EnrollmentPageQuery,
): Promise<{ items: repo.EnrollmentItem[]; next: { at: Date; id: string } | null }> {
  await ownPlaybook(db, accountId, playbookId);
  const rows = await repo.findEnrollmentPage(db, playbookId, { status, limit: limit + 1, after });
  const items = rows.slice(0, limit);
  const last = items[items.length - 1];
  return { items, next: rows.length > limit && last ? { at: last.startedAt, id: last.id } : null };
}

export async function eventCatalog(db: Db, accountId: string): Promise<repo.CatalogEntry[]> {
  await assertAccount(db, accountId);
  return repo.findCatalog(db, accountId);
}

/** The catalog with, for each name, the playbooks it triggers and the playbooks it exits. */
export async function eventCatalogUsage(db: Db, accountId: string): Promise<repo.CatalogUsage[]> {
  assertUuid(accountId, 'account');
  return repo.findCatalogUsage(db, accountId);
}
