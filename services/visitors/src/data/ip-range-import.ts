// Loads ip ranges (company by address range) through COPY on one connection, in one transaction:
// lookups see the old ranges until the new ones are all in (with `replace`, the old ones go in the
// same transaction). Lines are checked first; bad ones are reported with their number and skipped.
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { parseIpRangeLine } from '../domain/ip-range-line.js';

export interface IpRangeImportReport {
  read: number;
  imported: number;
  skipped: number;
  errors: { line: number; message: string }[];
}

export interface ImportIpRangesOptions {
  /** As the visitors role (it owns ip_ranges). */
  databaseUrl: string;
  /** Deletes every range first (in the same transaction). */
  replace?: boolean;
  onProgress?: (report: IpRangeImportReport) => void;
  /** Rows a COPY carries. */
  batchSize?: number;
}

const MAX_ERRORS = 1000;

// COPY text: a backslash, tab, newline or carriage return escaped (names are free text).
const copyValue = (v: string | null) => (v === null ? '\\N' : v.replace(/[\\\t\n\r]/g, (c) => ({ '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' })[c]!));

export async function importIpRanges(lines: AsyncIterable<string>, options: ImportIpRangesOptions): Promise<IpRangeImportReport> {
  const batchSize = options.batchSize ?? 20_000;
  const report: IpRangeImportReport = { read: 0, imported: 0, skipped: 0, errors: [] };
  // Listening at once: a readline over a small file would otherwise end (and be missed) while we connect.
  const input = lines[Symbol.asyncIterator]();
  const client = new pg.Client({ connectionString: options.databaseUrl, application_name: 'glimpse-import-ip-ranges' });
  client.on('error', () => {});
  try {
    await client.connect();
    await client.query('BEGIN');
    if (options.replace) await client.query('DELETE FROM ip_ranges');
    let rows: string[] = [];
    const flush = async () => {
      if (rows.length === 0) return;
      await pipeline(Readable.from([rows.join('')]), client.query(copyFrom('COPY ip_ranges (range, company_name, company_domain) FROM STDIN')));
      report.imported += rows.length;
      rows = [];
      options.onProgress?.(report);
    };
    let lineNumber = 0;
    for await (const line of { [Symbol.asyncIterator]: () => input }) {
      lineNumber += 1;
      if (line.trim() === '') continue;
      report.read += 1;
      const parsed = parseIpRangeLine(line);
      if ('error' in parsed) {
        report.skipped += 1;
        if (report.errors.length < MAX_ERRORS) report.errors.push({ line: lineNumber, message: parsed.error });
        continue;
      }
      rows.push(`${copyValue(parsed.cidr)}\t${copyValue(parsed.name)}\t${copyValue(parsed.domain)}\n`);
      if (rows.length >= batchSize) await flush();
    }
    await flush();
    await client.query('COMMIT');
    return report;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    await input.return?.().catch(() => undefined);
    await client.end().catch(() => undefined);
  }
}
