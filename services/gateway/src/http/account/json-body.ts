// Management bodies: declared JSON (415 otherwise) and at most 32 KB (413).
import express from 'express';
import { requireJson } from '../require-json.js';

export const MANAGEMENT_BODY_LIMIT_BYTES = 32 * 1024;

export const jsonBody = [requireJson, express.json({ limit: MANAGEMENT_BODY_LIMIT_BYTES, strict: false })];

/** The client's query string as it came ("" or "?…"), for the service that checks it. */
export function rawSearch(req: express.Request): string {
  const at = req.originalUrl.indexOf('?');
  return at === -1 ? '' : req.originalUrl.slice(at);
}
