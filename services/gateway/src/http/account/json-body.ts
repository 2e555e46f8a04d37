// Management bodies: declared JSON (415 otherwise) and at most 32 KB (413).
import type express from 'express';
import { jsonBodyParser } from '../json-body.js';

export const MANAGEMENT_BODY_LIMIT_BYTES = 32 * 1024;

/** The management routes' body parser (jsonBodyParser makes one for any limit). */
export const jsonBody = jsonBodyParser(MANAGEMENT_BODY_LIMIT_BYTES);

/** The client's query string as it came ("" or "?…"), for the service that checks it. */
export function rawSearch(req: express.Request): string {
  const at = req.originalUrl.indexOf('?');
  return at === -1 ? '' : req.originalUrl.slice(at);
}
