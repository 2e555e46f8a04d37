// The imports (domain/import-data.ts, import-persons.ts) bound to Postgres: persons through COPY on
// a connection of their own, or through statements on a Db; visitors and companies through a Db.
// These keep the signatures the CLI and the tests call them by.
import type { Db } from '@glimpse/db/enrichment';
import { companyStore } from '../data/company-repository.js';
import { visitorImportStore } from '../data/import-repository.js';
import { openCopyPersonWriter, statementPersonWriter } from '../data/person-import-repository.js';
import { importCompanyLines, importVisitorLines, type ImportReport, type LineImportRun } from '../domain/import-data.js';
import { importPersonLines } from '../domain/import-persons.js';

export type { ImportReport };

export interface ImportOptions extends LineImportRun {
  /** Persons are written through COPY on a connection of their own when this is given. */
  databaseUrl?: string;
  /** Visitors are written through it; persons too when no databaseUrl is given (no COPY then). */
  db?: Db;
  defaultPhoneRegion: string;
  /** Lines per batch (visitors) or persons per transaction (persons). */
  batchSize?: number;
}

export function importPersons(lines: AsyncIterable<string>, options: ImportOptions): Promise<ImportReport> {
  const { databaseUrl, db, batchSize, ...rest } = options;
  if (!databaseUrl && !db) return Promise.reject(new Error('importPersons needs a databaseUrl (COPY) or a db'));
  const openWriter = async () => (databaseUrl ? openCopyPersonWriter(databaseUrl) : statementPersonWriter(db!));
  return importPersonLines(lines, { ...rest, openWriter, ...(batchSize ? { chunkSize: batchSize } : {}) });
}

export function importVisitors(lines: AsyncIterable<string>, accountId: string, options: ImportOptions): Promise<ImportReport> {
  const { db } = options;
  if (!db) throw new Error('importVisitors needs a db');
  return importVisitorLines(lines, accountId, visitorImportStore(db), options);
}

/** Companies (firmographics) by domain, source "import": a later line of a domain replaces an earlier one. */
export function importCompanies(lines: AsyncIterable<string>, options: Omit<ImportOptions, 'defaultPhoneRegion'>): Promise<ImportReport> {
  const { db } = options;
  if (!db) throw new Error('importCompanies needs a db');
  return importCompanyLines(lines, companyStore(db), options);
}
