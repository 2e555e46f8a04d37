// Imports an IP dataset file (MaxMind DB, CSV of ranges, NDJSON company list) into visitors.ip_ranges
// as the dataset's next version, by one COPY in one transaction that then moves the dataset to it
// and deletes its other versions: lookups see the old dataset until the new one is in, and no other
// dataset is touched. A bad line is reported and skipped, never the load rolled back for it.
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { from as copyFrom } from 'pg-copy-streams';
import { AppError } from '@glimpse/errors';
import { csvColumns, csvRangeParser, DEFAULT_CSV_COLUMNS } from '../domain/csv-range-line.js';
import { formatAddress } from '../domain/ip-bounds.js';
import { checkPrecedence, type IpDatasetFormat } from '../domain/ip-dataset.js';
import { lineRows, mmdbRows, type RowOutcome } from '../domain/ip-dataset-rows.js';
import { parseIpRangeLine } from '../domain/ip-range-line.js';
import type { IpRangeRow } from '../domain/ip-range-row.js';
import { mmdbRecordFields } from '../domain/mmdb-record.js';
import { openMmdb } from '../domain/mmdb-networks.js';
import { assertDatasetName, inDatasetTransaction, replaceDatasetVersion } from './ip-datasets.js';

export interface IpDatasetImportReport {
  /** Lines read (a CSV header and blank lines aside), or a MaxMind DB's networks. */
  read: number;
  /** Rows stored (a MaxMind DB's adjacent networks with the same fields are one row). */
  imported: number;
  skipped: number;
  /** The first 1000 bad lines (a MaxMind DB's: the network's number, in address order). */
  errors: { line: number; message: string }[];
  dataset: string;
  version: number;
}

export interface ImportIpDatasetOptions {
  /** As the visitors role (it owns ip_ranges). */
  databaseUrl: string;
  dataset: string;
  format: IpDatasetFormat;
  /** Higher wins where datasets overlap; kept as it is when not given (0 for a new dataset). */
  precedence?: number;
  /** A CSV's columns: start, end, asn, name, domain, type; any other name is ignored. */
  columns?: readonly string[];
  onProgress?: (report: IpDatasetImportReport) => void;
  /** Rows between two progress calls. */
  batchSize?: number;
}

/** A text file's lines (csv, ndjson), or a MaxMind DB file's bytes (read whole: the format is a tree to walk). */
export type IpDatasetSource = AsyncIterable<string> | Iterable<string> | Uint8Array;

const MAX_ERRORS = 1000;
const COPY_CHUNK = 256 * 1024;
const COPY_SQL = 'COPY ip_ranges (dataset, version, first, last, asn, name, domain, type) FROM STDIN';

// COPY text: a backslash, tab, newline or carriage return escaped (names are free text).
const ESCAPES: Record<string, string> = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' };
const copyText = (v: string | number | null) => (v === null ? '\\N' : typeof v === 'number' ? String(v) : v.replace(/[\\\t\n\r]/g, (c) => ESCAPES[c]!));

function copyLine(prefix: string, row: IpRangeRow): string {
  const first = formatAddress(row.family, row.first);
  const last = formatAddress(row.family, row.last);
  return `${prefix}${first}\t${last}\t${copyText(row.asn)}\t${copyText(row.name)}\t${copyText(row.domain)}\t${copyText(row.type)}\n`;
}

function invalid(message: string): never {
  throw new AppError('invalid_request', message);
}

/** The outcomes of the source in the format asked for; options are checked before anything is read. */
function outcomesOf(source: IpDatasetSource, options: ImportIpDatasetOptions): AsyncIterable<RowOutcome> | Iterable<RowOutcome> {
  const isBytes = source instanceof Uint8Array;
  if (options.format === 'mmdb') {
    if (!isBytes) invalid('a MaxMind DB file is imported from its bytes');
    let file;
    try {
      file = openMmdb(Buffer.from(source.buffer, source.byteOffset, source.byteLength));
    } catch (err) {
      invalid(`not a MaxMind DB file: ${(err as Error).message}`);
    }
    return mmdbRows(file, mmdbRecordFields);
  }
  if (isBytes) invalid(`a ${options.format} file is imported from its lines`);
  const lines = source as AsyncIterable<string>;
  if (options.format === 'ndjson') return lineRows(lines, parseIpRangeLine);
  const columns = csvColumns(options.columns ?? DEFAULT_CSV_COLUMNS);
  if ('error' in columns) invalid(columns.error);
  return lineRows(lines, csvRangeParser(columns));
}

async function* toAsync(lines: Iterable<string>): AsyncIterable<string> {
  yield* lines;
}

/** The source's line iterator, asked for at once: a readline over a small file would otherwise end (and be missed) while we connect. */
function startLines(source: IpDatasetSource): AsyncIterator<string> | undefined {
  if (source instanceof Uint8Array) return undefined;
  return Symbol.asyncIterator in source ? source[Symbol.asyncIterator]() : toAsync(source)[Symbol.asyncIterator]();
}

/** COPY text in chunks of about COPY_CHUNK, counting into `report` as it goes. */
async function* copyChunks(outcomes: AsyncIterable<RowOutcome> | Iterable<RowOutcome>, report: IpDatasetImportReport, options: ImportIpDatasetOptions) {
  const prefix = `${report.dataset}\t${report.version}\t`;
  const batchSize = options.batchSize ?? 20_000;
  let chunk = '';
  for await (const outcome of outcomes) {
    if ('row' in outcome) {
      report.read += outcome.read;
      report.imported += 1;
      chunk += copyLine(prefix, outcome.row);
      if (chunk.length >= COPY_CHUNK) {
        yield chunk;
        chunk = '';
      }
      if (report.imported % batchSize === 0) options.onProgress?.(report);
      continue;
    }
    report.read += 1;
    report.skipped += 1;
    if ('error' in outcome && report.errors.length < MAX_ERRORS) report.errors.push({ line: outcome.line, message: outcome.error });
  }
  if (chunk) yield chunk;
}

export async function importIpDataset(source: IpDatasetSource, options: ImportIpDatasetOptions): Promise<IpDatasetImportReport> {
  const lines = startLines(source);
  try {
    assertDatasetName(options.dataset);
    if (options.precedence !== undefined && checkPrecedence(options.precedence)) invalid(checkPrecedence(options.precedence)!);
    const outcomes = outcomesOf(lines ? { [Symbol.asyncIterator]: () => lines } : source, options);
    return await inDatasetTransaction(
      { databaseUrl: options.databaseUrl, dataset: options.dataset, kind: 'ranges', applicationName: 'glimpse-import-ip-ranges' },
      async (client, current) => {
        const report: IpDatasetImportReport = { read: 0, imported: 0, skipped: 0, errors: [], dataset: options.dataset, version: (current?.version ?? 0) + 1 };
        await pipeline(Readable.from(copyChunks(outcomes, report, options)), client.query(copyFrom(COPY_SQL)));
        const precedence = options.precedence ?? current?.precedence ?? 0;
        await replaceDatasetVersion(client, {
          name: options.dataset,
          kind: 'ranges',
          format: options.format,
          precedence,
          version: report.version,
          size: report.imported,
        });
        return report;
      },
    );
  } finally {
    await lines?.return?.().catch(() => undefined);
  }
}

/** A hand-made company list (NDJSON) as dataset `companies` (or options.dataset): importIpDataset's ndjson format. */
export function importIpRanges(
  lines: AsyncIterable<string>,
  options: Omit<ImportIpDatasetOptions, 'format' | 'dataset'> & { dataset?: string },
): Promise<IpDatasetImportReport> {
  return importIpDataset(lines, { ...options, dataset: options.dataset ?? 'companies', format: 'ndjson' });
}
