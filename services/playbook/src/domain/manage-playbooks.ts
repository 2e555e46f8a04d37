// Playbook management rules. Rule 3 (spec §4.3): a playbook can be triggered only by an event name
// the account has already sent; exits may name any valid event name.
import { AppError } from '@glimpse/errors';
import type { Db } from '@glimpse/db';
import { EVENT_NAME_PATTERN } from '@glimpse/messaging';
import * as repo from '../data/playbook-repository.js';

export type { PlaybookView, EnrollmentView, CatalogEntry } from '../data/playbook-repository.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function assertUuid(value: string, what: string): void {
  if (!UUID.test(value)) throw new AppError('not_found', `${what} ${value} does not exist`);
}

async function assertAccount(db: Db, accountId: string): Promise<void> {
  assertUuid(accountId, 'account');
  if (!(await repo.accountExists(db, accountId))) throw new AppError('not_found', `account ${accountId} does not exist`);
}

export function validateEventNames(names: string[], field: 'trigger' | 'exit'): string[] {
  for (const name of names) {
    if (!EVENT_NAME_PATTERN.test(name)) {
      throw new AppError('invalid_request', `${field} "${name}" is not a valid event name: 1 to 64 letters, digits, _ . : -`);
    }
  }
  return [...new Set(names)];
}

export async function createPlaybook(db: Db, input: { accountId: string; name: string; triggers?: string[]; exits?: string[] }): Promise<repo.PlaybookView> {
  const name = input.name.trim();
  if (name.length === 0 || name.length > 200) throw new AppError('invalid_request', 'name must be 1 to 200 characters');
  const triggers = validateEventNames(input.triggers ?? [], 'trigger');
  const exits = validateEventNames(input.exits ?? [], 'exit');
  await assertAccount(db, input.accountId);
  const known = await repo.namesInCatalog(db, input.accountId, triggers);
  const unknown = triggers.find((t) => !known.has(t));
  if (unknown !== undefined) {
    throw new AppError(
      'unknown_event_name',
      `trigger "${unknown}" has never been sent to this account; a playbook can only be triggered by an event name already in the catalog (send it once first)`,
    );
  }
  return repo.insertPlaybook(db, { accountId: input.accountId, name, triggers, exits });
}

export async function listPlaybooks(db: Db, accountId: string): Promise<repo.PlaybookView[]> {
  await assertAccount(db, accountId);
  return repo.findPlaybooks(db, accountId);
}

export async function listEnrollments(db: Db, accountId: string, playbookId: string): Promise<repo.EnrollmentView[]> {
  await assertAccount(db, accountId);
  assertUuid(playbookId, 'playbook');
  const playbook = await repo.findPlaybook(db, accountId, playbookId);
  if (!playbook) throw new AppError('not_found', `playbook ${playbookId} does not exist in account ${accountId}`);
  return repo.findEnrollments(db, playbookId);
}

export async function eventCatalog(db: Db, accountId: string): Promise<repo.CatalogEntry[]> {
  await assertAccount(db, accountId);
  return repo.findCatalog(db, accountId);
}
