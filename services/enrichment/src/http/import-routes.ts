// The enrichment service's imports over its internal API: the gateway's operator API streams an
// NDJSON file here (POST /operator/imports/persons, /operator/imports/companies,
// /operator/accounts/{id}/imports/visitors) and the same import code as the direct `glimpse import …`
// writes it, persons through COPY on a connection of their own. The answer is the import's report,
// bad lines with their numbers.
import readline from 'node:readline';
import { Readable } from 'node:stream';
import express, { type Request, type Router } from 'express';
import type { Db } from '@glimpse/db/enrichment';
import { AppError } from '@glimpse/errors';
import { internalCallers } from '@glimpse/http';
import { importCompanies, importPersons, importVisitors } from '../wiring/import-data.js';

// Persons per transaction of an import through here. A request is one part of the file (the CLI
// sends about 16 MiB, some 2,000 persons of the demo's size); chunks well below a part's persons let
// the next chunk be parsed while the last is written, as the direct import does with its larger ones.
const PERSONS_PER_CHUNK = 500;
/** A part up to this size is read whole before its import starts (the CLI's are about 16 MiB). */
const WHOLE_PART_BYTES = 32 * 1024 * 1024;

/** The request's first chunks up to `limit` bytes (all of them when it is shorter), and whether it ended. */
async function readAhead(body: AsyncIterator<Buffer>, limit: number): Promise<{ first: Buffer; ended: boolean }> {
  const chunks: Buffer[] = [];
  let size = 0;
  while (size < limit) {
    const next = await body.next();
    if (next.done) return { first: Buffer.concat(chunks, size), ended: true };
    chunks.push(next.value);
    size += next.value.length;
  }
  return { first: Buffer.concat(chunks, size), ended: false };
}

/**
 * A part of an NDJSON file (persons, companies, visitors) as lines, split as the direct import
 * splits a file. A part the size the CLI sends is read whole first, so the request is received at
 * once, well inside the server's request timeout however long its lines take to write (read at the
 * import's pace, a part on a busy machine outlasted it); a larger upload (not the CLI's) is read as
 * it is imported beyond its first WHOLE_PART_BYTES, so no request holds more than that in memory.
 * Throws when the upload ends before the request is complete.
 */
async function* partLines(req: Request): AsyncGenerator<string> {
  const body = (req as AsyncIterable<Buffer>)[Symbol.asyncIterator]();
  const { first, ended } = await readAhead(body, WHOLE_PART_BYTES);
  async function* rest(): AsyncGenerator<Buffer> {
    yield first;
    if (!ended) yield* { [Symbol.asyncIterator]: () => body };
  }
  yield* readline.createInterface({ input: Readable.from(rest(), { objectMode: false }), crlfDelay: Infinity });
  if (!req.complete) throw new AppError('invalid_request', 'the upload ended before the whole file was received');
}

export interface ImportRoutesOptions {
  db: Db;
  /** The service's own database, for the persons' COPY connection. */
  databaseUrl: string;
  defaultPhoneRegion: string;
  internalTokens: Partial<Record<string, string>>;
}

function regionOf(req: Request, fallback: string): string {
  const region = req.query.region;
  if (region === undefined) return fallback;
  if (typeof region !== 'string' || !/^[A-Z]{2}$/.test(region)) throw new AppError('invalid_request', 'region must be two capital letters (a country code)');
  return region;
}

export function importRoutes({ db, databaseUrl, defaultPhoneRegion, internalTokens }: ImportRoutesOptions): Router {
  const router = express.Router();
  // Only the gateway imports; no body parser, the request is read as lines as it arrives.
  router.use('/internal/imports', internalCallers({ tokens: internalTokens, routes: { gateway: '*' } }));
  router.post('/internal/imports/persons', async (req, res) => {
    const region = regionOf(req, defaultPhoneRegion);
    res.json(await importPersons(partLines(req), { databaseUrl, defaultPhoneRegion: region, batchSize: PERSONS_PER_CHUNK }));
  });
  router.post('/internal/imports/companies', async (req, res) => {
    res.json(await importCompanies(partLines(req), { db }));
  });
  router.post('/internal/imports/visitors', async (req, res) => {
    const region = regionOf(req, defaultPhoneRegion);
    res.json(await importVisitors(partLines(req), res.locals.accountId as string, { db, defaultPhoneRegion: region }));
  });
  return router;
}
