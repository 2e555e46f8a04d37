// Management bodies: declared JSON (415 otherwise) and at most 32 KB (413).
import type express from 'express';
import { jsonBody as checkedJsonBody } from '../json-body.js';

export const MANAGEMENT_BODY_LIMIT_BYTES = 32 * 1024;

export const jsonBody = checkedJsonBody(MANAGEMENT_BODY_LIMIT_BYTES);

/** The client's query string as it came ("" or "?…"), for the service that checks it. */
export function rawSearch(req: express.Request): string {
  const at = req.originalUrl.indexOf('?');
  return at === -1 ? '' : req.originalUrl.slice(at);
}
