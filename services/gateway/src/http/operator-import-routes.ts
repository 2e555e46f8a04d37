// The operator's imports under /operator: the CLI streams a file here and the gateway streams it on
// to the service that owns the data, whose own import code writes it (COPY for persons and IP
// ranges) and answers its report of bad lines. So an operator's machine needs no route to the
// database, only to the operator API. No body parser: the request stream is passed on as it comes,
// counted against a size cap. Mounted behind operatorAuth (operator-routes.ts); not in the public
// OpenAPI document.
import { Transform, type TransformCallback } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import express, { type Request, type Response, type Router } from 'express';
import { AppError, RETRY_AFTER_SECONDS } from '@glimpse/errors';
import type { Logger } from '@glimpse/logging';
import { relay } from '../data/internal-service.js';
import type { ImportForwarder, ImportKind } from '../data/import-forwarder.js';
import { operatorAccountId } from './operator-account-routes.js';
import { queryOptions } from './query-options.js';

/** A file larger than this is refused (an NDJSON file of persons, companies or visitors goes in parts: the CLI sends 16 MiB at a time). */
export const IMPORT_MAX_BYTES = 256 * 1024 * 1024;

/** The options each import passes on to its service; any other query parameter is dropped. */
const OPTIONS: Record<ImportKind, readonly string[]> = {
  persons: ['region'],
  companies: [],
  visitors: ['region'],
  'ip-ranges': ['dataset', 'format', 'precedence', 'columns'],
  locations: ['dataset'],
};

export interface OperatorImportOptions {
  imports: ImportForwarder;
  logger: Logger;
  maxBytes?: number;
}

/** Counts the bytes that pass and fails the stream past the cap, so the service sees the upload cut off. */
function sizeCap(maxBytes: number): Transform {
  let size = 0;
  return new Transform({
    transform(chunk: Buffer, _encoding, done: TransformCallback) {
      size += chunk.length;
      if (size > maxBytes) done(new AppError('payload_too_large', `the file exceeds the ${maxBytes} byte limit of an import request`));
      else done(null, chunk);
    },
  });
}

function queryOf(req: Request, kind: ImportKind): string {
  return queryOptions(req, OPTIONS[kind]).toString();
}

export function operatorImportRoutes({ imports, logger, maxBytes = IMPORT_MAX_BYTES }: OperatorImportOptions): Router {
  const router = express.Router();
  // One import of a kind at a time: two would compete for the same rows and the same COPY bandwidth.
  const running = new Set<ImportKind>();

  const handle = (kind: ImportKind, accountOf?: (req: Request) => string) => async (req: Request, res: Response) => {
    try {
      await forward(kind, req, res, accountOf?.(req));
    } catch (err) {
      // Refused before the whole file was read: the connection is closed after the answer, not kept
      // alive with the rest of the upload still to come on it.
      if (!req.complete) res.set('Connection', 'close');
      throw err;
    }
  };

  const forward = async (kind: ImportKind, req: Request, res: Response, accountId: string | undefined) => {
    const declared = Number(req.get('content-length'));
    if (declared > maxBytes) throw new AppError('payload_too_large', `the file exceeds the ${maxBytes} byte limit of an import request`);
    const query = queryOf(req, kind);
    if (running.has(kind)) {
      res.set('Retry-After', RETRY_AFTER_SECONDS);
      throw new AppError('rate_limited', `an import of ${kind} is already running; retry when it is done`);
    }
    running.add(kind);
    const started = Date.now();
    try {
      const body = sizeCap(maxBytes);
      // A client gone mid-upload fails the stream, and the service sees the upload cut off. Not
      // awaited: a service that refuses the file answers before reading it all.
      pipeline(req, body).catch(() => undefined);
      const answer = await imports.forward(kind, { body, query, contentType: req.get('content-type'), accountId });
      // An audit line: what was imported and how it went, never a line of the file.
      logger.info({ kind, accountId, status: answer.status, ms: Date.now() - started }, 'operator import');
      // The service may answer (a refusal) before the whole file has come.
      if (!req.complete) res.set('Connection', 'close');
      relay(res, answer);
    } finally {
      running.delete(kind);
    }
  };

  router.post('/operator/imports/persons', handle('persons'));
  router.post('/operator/imports/companies', handle('companies'));
  router.post('/operator/imports/ip-ranges', handle('ip-ranges'));
  router.post('/operator/imports/locations', handle('locations'));
  router.post('/operator/accounts/:id/imports/visitors', handle('visitors', operatorAccountId));
  return router;
}
