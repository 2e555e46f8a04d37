// Playbooks, their triggers and exits, enrollments and the event-name catalog as the management use
// cases (manage-playbooks.ts) see them: the views, and the store they read and write through
// (data/playbook-repository.ts implements it).
import type { ReenrollmentPolicy } from './decide-effects.js';

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

/** New names refused by the full catalog: how many events carried one, the last such name and when. */
export interface CatalogRefusals {
  events: number;
  lastName: string;
  firstAt: Date;
  lastAt: Date;
}

export interface NewPlaybook {
  accountId: string;
  name: string;
  triggers: string[];
  exits: string[];
  reenrollment?: ReenrollmentPolicy;
}

export interface PlaybookChangeSet {
  name?: string;
  triggers?: string[];
  exits?: string[];
  reenrollment?: ReenrollmentPolicy;
}

export interface PlaybookStore {
  /** Whether the account is gone (its deletion reached this service on the accounts topic). */
  accountDeleted(accountId: string): Promise<boolean>;
  /** Which of the names are in the account's catalog (with `maxNames` its cap). */
  namesInCatalog(accountId: string, names: string[], maxNames: number): Promise<Set<string>>;
  /** How many names the account's catalog holds (at most `maxNames`). */
  catalogSize(accountId: string, maxNames: number): Promise<number>;
  /**
   * Counts the account's playbooks and inserts the new one in one transaction under the account's
   * playbooks lock, so concurrent creations never pass the cap together; null when the account
   * already has `maxPerAccount` (nothing inserted).
   */
  insertPlaybookUnderCap(input: NewPlaybook, maxPerAccount: number): Promise<PlaybookView | null>;
  findPlaybook(accountId: string, playbookId: string): Promise<PlaybookView | null>;
  /** The account's playbooks, oldest first. */
  findPlaybooks(accountId: string): Promise<PlaybookView[]>;
  /** Applies the given changes (lists replace) in one transaction; null when the playbook is not the account's. */
  changePlaybook(accountId: string, playbookId: string, changes: PlaybookChangeSet): Promise<PlaybookView | null>;
  /** Deletes the playbook with its triggers, exits and enrollments; false when it is not the account's. */
  removePlaybook(accountId: string, playbookId: string): Promise<boolean>;
  /** Every enrollment of the playbook, oldest first. */
  findEnrollments(playbookId: string): Promise<EnrollmentView[]>;
  /** Up to `limit` enrollments, newest first (startedAt desc, id desc), strictly after `after`. */
  findEnrollmentPage(
    playbookId: string,
    query: { status?: 'active' | 'stopped'; limit: number; after: { at: Date; id: string } | null },
  ): Promise<EnrollmentItem[]>;
  /** The whole catalog by name (bounded by its cap). */
  findCatalog(accountId: string, maxNames: number): Promise<CatalogEntry[]>;
  /** Up to `limit` names of the catalog by name, strictly after `after`, with the catalog's size. */
  findCatalogPage(accountId: string, query: { maxNames: number; limit: number; after: string | null }): Promise<{ entries: CatalogEntry[]; size: number }>;
  findCatalogRefusals(accountId: string): Promise<CatalogRefusals | null>;
  /** The playbooks opted in to each of the entries (as triggers and as exits), by name then id. */
  withUsage(accountId: string, entries: CatalogEntry[]): Promise<CatalogUsage[]>;
}
