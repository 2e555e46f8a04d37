// How the imports go through the front door: the file is sent to the operator API, which streams it
// to the service that owns the data, whose own import code writes it and reports its bad lines.
// An NDJSON file of persons, companies or visitors goes in parts of about PART_BYTES, cut at line
// ends (each part a request well inside the servers' request timeout, its lines renumbered into the
// file's); an IP dataset or a City database in one request, as its import replaces it in one transaction.
import fs from 'node:fs';
import type { CommandContext } from '../command.js';
import { loadConfig } from '../config.js';
import { configuredApi, OperatorApiError, type OperatorApi } from '../operator-api.js';

export const PART_BYTES = 16 * 1024 * 1024;

/** A 429 (an import of the kind is running) or a 503 (the service or its database is away) is tried again this many times. */
const ATTEMPTS = 6;
const MAX_ERRORS = 1000;

export interface UploadReport {
  read: number;
  imported: number;
  skipped: number;
  errors: { line: number; message: string }[];
}

export interface Part {
  bytes: Buffer;
  /** Lines in the part (its last line ends it, or the file). */
  lines: number;
}

const NEWLINE = 0x0a;

function countLines(bytes: Buffer): number {
  let n = 0;
  for (let i = bytes.indexOf(NEWLINE); i !== -1; i = bytes.indexOf(NEWLINE, i + 1)) n += 1;
  return n;
}

/** The file in parts of at least `partBytes` (a line longer than that makes its part longer), each ending at a line's end. */
export async function* fileParts(file: string, partBytes = PART_BYTES): AsyncGenerator<Part> {
  let chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of fs.createReadStream(file, { highWaterMark: 1024 * 1024 }) as AsyncIterable<Buffer>) {
    let rest = chunk;
    while (rest.length > 0) {
      // The first line end at or past the part's size closes it; before that, the chunk waits.
      const end = rest.indexOf(NEWLINE, Math.max(partBytes - size - 1, 0));
      if (end === -1) {
        chunks.push(rest);
        size += rest.length;
        break;
      }
      chunks.push(rest.subarray(0, end + 1));
      const bytes = Buffer.concat(chunks, size + end + 1);
      yield { bytes, lines: countLines(bytes) };
      chunks = [];
      size = 0;
      rest = rest.subarray(end + 1);
    }
  }
  if (size === 0) return;
  const bytes = Buffer.concat(chunks, size);
  yield { bytes, lines: countLines(bytes) + (bytes[bytes.length - 1] === NEWLINE ? 0 : 1) };
}

/** A part's report folded into the file's: its line numbers moved past the lines of the parts before it. */
export function addPart(total: UploadReport, part: UploadReport, linesBefore: number): void {
  total.read += part.read;
  total.imported += part.imported;
  total.skipped += part.skipped;
  for (const e of part.errors) if (total.errors.length < MAX_ERRORS) total.errors.push({ line: e.line + linesBefore, message: e.message });
}

/**
 * Sends one request again while the gateway answers 429 or 503, waiting what it asked (Retry-After),
 * or 408 (the request was not received in time, so nothing of it was imported: a part's persons and
 * visitors are upserts, a dataset's replacement a transaction that rolled back).
 */
const RETRIED_STATUSES = new Set([408, 429, 503]);

export async function withRetries<T>(send: () => Promise<T>, wait = (ms: number) => new Promise((r) => setTimeout(r, ms))): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await send();
    } catch (err) {
      const retriable = err instanceof OperatorApiError && RETRIED_STATUSES.has(err.status ?? 0);
      if (!retriable || attempt >= ATTEMPTS) throw err;
      await wait((err.retryAfterSeconds ?? 1) * 1000 * attempt);
    }
  }
}

const mib = (bytes: number) => (bytes / 1048576).toFixed(1);

/** Progress on stderr, at most about once a second (and always with force): bytes sent, lines reported, the rate. */
export function uploadProgress(io: CommandContext['io'], what: string, totalBytes: number) {
  const started = Date.now();
  let last = 0;
  return (sent: number, report: UploadReport | undefined, force = false) => {
    const now = Date.now();
    if (!force && now - last < 1000) return;
    last = now;
    const bytes = `${mib(sent)} of ${mib(totalBytes)} MiB sent`;
    if (!report) return io.stderr(`${what}: ${bytes}\n`);
    // As the direct import prints it, with the bytes sent after.
    const rate = Math.round((report.imported / Math.max(now - started, 1)) * 1000);
    io.stderr(`${what}: ${report.imported} imported, ${report.skipped} skipped (${rate}/s), ${bytes}\n`);
  };
}

/** Sends an NDJSON file to `path` part by part; the answer is the file's report, as the import's own. */
export async function uploadNdjson(api: OperatorApi, path: string, file: string, io: CommandContext['io'], what: string): Promise<UploadReport> {
  const total: UploadReport = { read: 0, imported: 0, skipped: 0, errors: [] };
  const show = uploadProgress(io, what, fs.statSync(file).size);
  let linesBefore = 0;
  let sent = 0;
  for await (const part of fileParts(file)) {
    const answer = (await withRetries(() => api.upload(path, part.bytes, 'application/x-ndjson'))) as UploadReport;
    addPart(total, answer, linesBefore);
    linesBefore += part.lines;
    sent += part.bytes.length;
    show(sent, total);
  }
  show(sent, total, true);
  return total;
}

/** Sends a whole file to `path` in one request, read as it is sent, with the bytes sent as progress. */
export async function uploadFile(api: OperatorApi, path: string, file: string, io: CommandContext['io'], what: string): Promise<unknown> {
  const show = uploadProgress(io, what, fs.statSync(file).size);
  let sent = 0;
  async function* counted(): AsyncGenerator<Uint8Array> {
    for await (const chunk of fs.createReadStream(file, { highWaterMark: 1024 * 1024 }) as AsyncIterable<Buffer>) {
      sent += chunk.length;
      show(sent, undefined);
      yield chunk;
    }
  }
  const answer = await withRetries(() => {
    sent = 0;
    return api.upload(path, counted(), 'application/octet-stream');
  });
  // A report of lines (IP ranges) ends the progress with its counts; another answer (a City database's) with the bytes.
  show(sent, typeof (answer as Partial<UploadReport>)?.imported === 'number' ? (answer as UploadReport) : undefined, true);
  return answer;
}

/**
 * The operator API when one is named (--url or GLIMPSE_URL): the imports go through it, and nothing
 * here needs a database. Without one, the import runs its service's code against the database
 * (DATABASE_URL, as the service's role): the way a Job inside the cluster runs it.
 */
export function importApi(values: CommandContext['values']): OperatorApi | undefined {
  const named = typeof values.url === 'string' || loadConfig().GLIMPSE_URL !== undefined;
  return named ? configuredApi(values) : undefined;
}
