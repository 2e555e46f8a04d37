// Imports persons from NDJSON lines (so a file larger than memory imports): each line is parsed,
// validated and normalized here, reported by number when bad, and the good ones are written in
// chunks through a PersonWriter (COPY, see person-import-repository.ts) while the next chunk is
// parsed. What is stored is what the lookups serve: the api.md §2.3 record and the api.md §2.1 details as JSON text.
// Each chunk also carries the companies its persons name (company-record.ts), one per domain.
import { companyOfPerson, mergeCompany, type CompanyRow } from './company-record.js';
import { validateImportRecord } from './enriched-record.js';
import { identitiesOf } from './identifiers.js';
import { toVisitorDetails } from './visitor-details.js';
import type { ImportReport, ImportRun } from './import-report.js';
import { newReport } from './import-report.js';

export interface PersonRow {
  id: string;
  record: string;
  details: string;
  identities: { kind: string; value: string }[];
  /** The employer the record names, when it names one by a domain. */
  company: CompanyRow | null;
}

export interface IdentityRow {
  kind: string;
  value: string;
  personId: string;
}

/**
 * Where chunks go. Each write is one transaction; writes come one after another, in line order.
 * The companies are upserted with source "persons", never over a row a company import wrote.
 */
export interface PersonWriter {
  write(rows: PersonRow[], identities: IdentityRow[], companies: CompanyRow[]): Promise<unknown>;
  close(): Promise<void>;
}

/** One line's text as a row to store, or why it cannot be imported. */
export function personRow(text: string, defaultPhoneRegion: string): { ok: true; row: PersonRow } | { ok: false; message: string } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { ok: false, message: 'not valid JSON' };
  }
  const result = validateImportRecord(value);
  if (!result.ok) return { ok: false, message: result.error };
  return {
    ok: true,
    row: {
      id: result.personId,
      // A line already in the served form is stored as written: no second serialisation.
      record: result.asGiven ? text.trim() : JSON.stringify(result.record),
      details: JSON.stringify(toVisitorDetails(result.record)),
      identities: identitiesOf(result.record, defaultPhoneRegion),
      company: companyOfPerson(result.record),
    },
  };
}

/**
 * A chunk's persons, one per id: a later line of the same person replaces the earlier one. Its
 * identities, one per email or phone: the person of the later line wins it (a Map keeps insertion
 * order, and a replaced entry moves to the end, so iteration order is line order).
 */
export class PersonChunk {
  private readonly persons = new Map<string, PersonRow>();
  private readonly companyRows = new Map<string, CompanyRow>();
  lines = 0;

  add(row: PersonRow): void {
    this.persons.delete(row.id);
    this.persons.set(row.id, row);
    this.lines += 1;
    const company = row.company;
    if (company) {
      const earlier = this.companyRows.get(company.domain);
      this.companyRows.set(company.domain, earlier ? mergeCompany(earlier, company) : company);
    }
  }

  get size(): number {
    return this.persons.size;
  }

  rows(): PersonRow[] {
    return [...this.persons.values()];
  }

  identities(): IdentityRow[] {
    const owners = new Map<string, IdentityRow>();
    for (const person of this.persons.values()) {
      for (const { kind, value } of person.identities) {
        const key = `${kind}:${value}`;
        owners.delete(key);
        owners.set(key, { kind, value, personId: person.id });
      }
    }
    return [...owners.values()];
  }

  /** Every company the chunk's lines named, one per domain, what later lines know winning. */
  companies(): CompanyRow[] {
    return [...this.companyRows.values()];
  }
}

export interface PersonImportOptions extends ImportRun {
  /**
   * Opened at the first write, not before: the lines may come from a stream that is already
   * flowing (readline drops lines emitted before it is iterated), so reading starts at once.
   */
  openWriter(): Promise<PersonWriter>;
  defaultPhoneRegion: string;
  /** Persons per transaction. */
  chunkSize?: number;
}

export async function importPersonLines(
  lines: AsyncIterable<string>,
  { openWriter, defaultPhoneRegion, chunkSize = 5000, onProgress, maxErrors = 1000 }: PersonImportOptions,
): Promise<ImportReport> {
  const report = newReport();
  const fail = (line: number, message: string) => {
    report.skipped += 1;
    if (report.errors.length < maxErrors) report.errors.push({ line, message });
  };
  let chunk = new PersonChunk();
  let writer: Promise<PersonWriter> | undefined;
  // One chunk is written while the next is parsed (the database works on the other core meanwhile);
  // writes still go one after another, in order, so a later line still wins.
  let writing: Promise<void> = Promise.resolve();
  const flush = async () => {
    await writing;
    if (chunk.size === 0) return;
    const current = chunk;
    chunk = new PersonChunk();
    writer ??= openWriter();
    writing = writer
      .then((w) => w.write(current.rows(), current.identities(), current.companies()))
      .then(() => {
        report.imported += current.lines;
        onProgress?.(report);
      });
    // Handled where it is awaited (the next flush); this only keeps it from counting as unhandled meanwhile.
    writing.catch(() => undefined);
  };
  try {
    let lineNumber = 0;
    for await (const text of lines) {
      lineNumber += 1;
      if (text.trim() === '') continue; // blank lines (a trailing newline, say) are not records
      report.read += 1;
      const parsed = personRow(text, defaultPhoneRegion);
      if (!parsed.ok) fail(lineNumber, parsed.message);
      else chunk.add(parsed.row);
      if (chunk.size >= chunkSize) await flush();
    }
    await flush();
    await writing;
  } finally {
    if (writer) await (await writer).close();
  }
  return report;
}
