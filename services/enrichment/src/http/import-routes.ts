// The enrichment service's imports over its internal API: the gateway's operator API streams an
// NDJSON file here (POST /operator/imports/persons, /operator/accounts/{id}/imports/visitors) and
// the same import code as `glimpse import … --direct` writes it, persons through COPY on a
// connection of their own. The answer is the import's report, bad lines with their numbers.
import express, { type Request, type Router } from 'express';
import type { Db } from '@glimpse/db/enrichment';
import { AppError } from '@glimpse/errors';
import { internalCallers, requestLines } from '@glimpse/http';
import { importPersons, importVisitors } from '../wiring/import-data.js';

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
    res.json(await importPersons(requestLines(req), { databaseUrl, defaultPhoneRegion: region }));
  });
  router.post('/internal/imports/visitors', async (req, res) => {
    const region = regionOf(req, defaultPhoneRegion);
    res.json(await importVisitors(requestLines(req), res.locals.accountId as string, { db, defaultPhoneRegion: region }));
  });
  return router;
}
