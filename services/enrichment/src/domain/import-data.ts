// Imports NDJSON streams line by line (so a file larger than memory imports): each bad line is
// reported with its number and skipped, the rest written in batches through the store each import
// declares. Persons go through COPY (import-persons.ts); visitors, a few per person at most, and
// companies through batched statements. wiring/import-data.ts binds them to Postgres.
import type { CompanyStore } from './companies.js';
import { normalizeEmail } from './identifiers.js';
import { companyLine } from './import-companies.js';
import type { ImportReport, ImportRun } from './import-report.js';

export type { ImportReport } from './import-report.js';

export interface LineImportRun extends ImportRun {
  /** Lines per batch. */
  batchSize?: number;
}

export interface VisitorRow {
  visitorId: string;
  email: string;
  pageViews: unknown;
}

/** Where imported visitors are written (data/import-repository.ts). */
export interface VisitorImportStore {
  /** Writes the visitors whose email belongs to a known person; returns the emails that matched nobody. */
  upsertVisitors(accountId: string, batch: VisitorRow[]): Promise<Set<string>>;
}

type Parsed<T> = { ok: true; row: T } | { ok: false; message: string };

async function importLines<T>(
  lines: AsyncIterable<string>,
  parse: (value: unknown) => Parsed<T>,
  write: (batch: { line: number; row: T }[]) => Promise<{ line: number; message: string }[]>,
  { batchSize = 500, onProgress, maxErrors = 1000 }: LineImportRun,
): Promise<ImportReport> {
  const report: ImportReport = { read: 0, imported: 0, skipped: 0, errors: [] };
  const fail = (line: number, message: string) => {
    report.skipped += 1;
    if (report.errors.length < maxErrors) report.errors.push({ line, message });
  };
  let batch: { line: number; row: T }[] = [];
  // One batch is written while the next is parsed (the database works on its own core meanwhile);
  // batches are still written one after another, in order, so a later line still wins.
  let writing: Promise<void> = Promise.resolve();
  const flush = async () => {
    await writing;
    if (batch.length === 0) return;
    const current = batch;
    batch = [];
    writing = write(current).then((rejected) => {
      rejected.forEach((r) => fail(r.line, r.message));
      report.imported += current.length - rejected.length;
      onProgress?.(report);
    });
    // Handled where it is awaited (the next flush); this only keeps it from counting as unhandled meanwhile.
    writing.catch(() => undefined);
  };
  let lineNumber = 0;
  for await (const text of lines) {
    lineNumber += 1;
    if (text.trim() === '') continue; // blank lines (a trailing newline, say) are not records
    report.read += 1;
    // JSON.parse would call it bad JSON; it is worth naming, as Postgres can store no NUL.
    if (text.includes('\0')) {
      fail(lineNumber, 'contains a NUL character');
      continue;
    }
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      fail(lineNumber, 'not valid JSON');
      continue;
    }
    const parsed = parse(value);
    if (!parsed.ok) fail(lineNumber, parsed.message);
    else batch.push({ line: lineNumber, row: parsed.row });
    if (batch.length >= batchSize) await flush();
  }
  await flush();
  await writing;
  // A batch's write rejections arrive after the next batch's parse errors: back in line order.
  report.errors.sort((a, b) => a.line - b.line);
  return report;
}

const OBJECT_ID = /^[a-fA-F0-9]{24}$/;

export function importVisitorLines(lines: AsyncIterable<string>, accountId: string, store: VisitorImportStore, options: LineImportRun): Promise<ImportReport> {
  return importLines<VisitorRow>(
    lines,
    (value) => {
      if (!value || typeof value !== 'object' || Array.isArray(value)) return { ok: false, message: 'a line must be a JSON object' };
      const { visitorId, email, ...pageViews } = value as Record<string, unknown>;
      if (typeof visitorId !== 'string' || !OBJECT_ID.test(visitorId)) return { ok: false, message: 'visitorId must be 24 hexadecimal characters' };
      const normalized = typeof email === 'string' ? normalizeEmail(email) : null;
      if (!normalized) return { ok: false, message: 'email must be a valid email address' };
      return { ok: true, row: { visitorId: visitorId.toLowerCase(), email: normalized, pageViews: Object.keys(pageViews).length > 0 ? pageViews : undefined } };
    },
    async (batch) => {
      const unknown = await store.upsertVisitors(
        accountId,
        batch.map((b) => b.row),
      );
      return batch.filter((b) => unknown.has(b.row.email)).map((b) => ({ line: b.line, message: 'no imported person has this email' }));
    },
    options,
  );
}

/** Companies (firmographics) by domain, source "import": a later line of a domain replaces an earlier one. */
export function importCompanyLines(lines: AsyncIterable<string>, store: Pick<CompanyStore, 'upsertImported'>, options: LineImportRun): Promise<ImportReport> {
  return importLines(
    lines,
    companyLine,
    async (batch) => {
      await store.upsertImported([...new Map(batch.map((b) => [b.row.domain, b.row])).values()]);
      return [];
    },
    { ...options, batchSize: options.batchSize ?? 1000 },
  );
}
