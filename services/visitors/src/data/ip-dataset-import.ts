// Imports an IP dataset file (MaxMind DB, CSV of ranges, NDJSON company list) into visitors.ip_ranges
// as the dataset's next version, by one COPY in one transaction that then moves the dataset to it
// and deletes its other versions: lookups see the old dataset until the new one is in, and no other
// dataset is touched. A bad line is reported and skipped, never the load rolled back for it.
import fs from 'node:fs/promises';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { from as copyFrom } from 'pg-copy-streams';
import { AppError } from '@glimpse/errors';
import { csvColumns, csvRangeParser, DEFAULT_CSV_COLUMNS } from '../domain/csv-range-line.js';
import { checkPrecedence, type IpDatasetFormat } from '../domain/ip-dataset.js';
import { lineRowReader, mmdbRows, type LineParser, type RowOutcome } from '../domain/ip-dataset-rows.js';
import { parseIpRangeLine } from '../domain/ip-range-line.js';
import type { IpRangeRow } from '../domain/ip-range-row.js';
import { mmdbRecordFields } from '../domain/mmdb-record.js';
import { openMmdb } from '../domain/mmdb-networks.js';
import { assertDatasetName, inDatasetTransaction, replaceDatasetVersion } from './ip-datasets.js';
import { fileLineBatches, lineBatches } from './line-batches.js';

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

/**
 * A file by its path (the fastest: read a chunk at a time); a text file's lines (csv, ndjson); or a
 * MaxMind DB file's bytes (a MaxMind DB is read whole: the format is a tree to walk).
 */
export type IpDatasetSource = { path: string } | AsyncIterable<string> | Iterable<string> | Uint8Array;

const MAX_ERRORS = 1000;
const COPY_CHUNK = 256 * 1024;
const COPY_SQL = 'COPY ip_ranges (dataset, version, first, last, asn, name, domain, type) FROM STDIN';

// COPY text: a backslash, tab, newline or carriage return escaped (names are free text).
const ESCAPES: Record<string, string> = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' };
const copyText = (v: string | number | null) => (v === null ? '\\N' : typeof v === 'number' ? String(v) : v.replace(/[\\\t\n\r]/g, (c) => ESCAPES[c]!));

const copyLine = (prefix: string, row: IpRangeRow) =>
  `${prefix}${row.first}\t${row.last}\t${copyText(row.asn)}\t${copyText(row.name)}\t${copyText(row.domain)}\t${copyText(row.type)}\n`;

function invalid(message: string): never {
  throw new AppError('invalid_request', message);
}

type Outcomes = AsyncIterable<Iterable<RowOutcome>>;

async function* once<T>(value: T): AsyncGenerator<T> {
  yield value;
}

async function* eachBatch(batches: AsyncIterable<string[]>, read: (text: string) => RowOutcome | null): Outcomes {
  for await (const batch of batches) yield batch.flatMap((text) => read(text) ?? []);
}

const isLineIterator = (source: IpDatasetSource | AsyncIterator<string>): source is AsyncIterator<string> =>
  !(source instanceof Uint8Array) && typeof (source as AsyncIterator<string>).next === 'function';

/** A MaxMind DB's networks; the file is read and checked before anything is written. */
async function mmdbOutcomes(source: IpDatasetSource | AsyncIterator<string>): Promise<Outcomes> {
  if (!(source instanceof Uint8Array) && !('path' in source)) invalid('a MaxMind DB file is imported from its path or its bytes');
  const bytes = source instanceof Uint8Array ? Buffer.from(source.buffer, source.byteOffset, source.byteLength) : await fs.readFile(source.path);
  let file;
  try {
    file = openMmdb(bytes);
  } catch (err) {
    invalid(`not a MaxMind DB file: ${(err as Error).message}`);
  }
  return once(mmdbRows(file, mmdbRecordFields));
}

/** The outcomes of the source in the format asked for, in batches; options are checked before anything is read. */
async function outcomesOf(source: IpDatasetSource | AsyncIterator<string>, options: ImportIpDatasetOptions): Promise<Outcomes> {
  if (options.format === 'mmdb') return mmdbOutcomes(source);
  if (source instanceof Uint8Array) invalid(`a ${options.format} file is imported from its path or its lines`);
  let parse: LineParser = parseIpRangeLine;
  if (options.format === 'csv') {
    const columns = csvColumns(options.columns ?? DEFAULT_CSV_COLUMNS);
    if ('error' in columns) invalid(columns.error);
    parse = csvRangeParser(columns);
  }
  // An async iterable was turned into its iterator at once (startLines): what is left is a sync one.
  const batches = isLineIterator(source)
    ? lineBatches(source)
    : 'path' in source
      ? fileLineBatches(source.path)
      : lineBatches((source as Iterable<string>)[Symbol.iterator]());
  return eachBatch(batches, lineRowReader(parse));
}

/** An async source's line iterator, asked for at once: a readline over a small file would otherwise end (and be missed) while we connect. */
function startLines(source: IpDatasetSource): AsyncIterator<string> | undefined {
  return !(source instanceof Uint8Array) && Symbol.asyncIterator in source ? source[Symbol.asyncIterator]() : undefined;
}

/** COPY text in chunks of about COPY_CHUNK, counting into `report` as it goes. */
async function* copyChunks(outcomes: Outcomes, report: IpDatasetImportReport, options: ImportIpDatasetOptions) {
  const prefix = `${report.dataset}\t${report.version}\t`;
  const batchSize = options.batchSize ?? 20_000;
  let chunk = '';
  for await (const batch of outcomes) {
    for (const outcome of batch) {
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
  }
  if (chunk) yield chunk;
}

export async function importIpDataset(source: IpDatasetSource, options: ImportIpDatasetOptions): Promise<IpDatasetImportReport> {
  const lines = startLines(source);
  try {
    assertDatasetName(options.dataset);
    if (options.precedence !== undefined && checkPrecedence(options.precedence)) invalid(checkPrecedence(options.precedence)!);
    const outcomes = await outcomesOf(lines ?? source, options);
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
