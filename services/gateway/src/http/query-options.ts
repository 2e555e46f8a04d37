// The query parameters a route passes on to an internal service: only those it names, each given once.
import type { Request } from 'express';
import { AppError } from '@glimpse/errors';

/** The named query parameters the request gives, as a query string's parameters; 400 for one given twice. */
export function queryOptions(req: Request, names: readonly string[]): URLSearchParams {
  const query = new URLSearchParams();
  for (const name of names) {
    const value = req.query[name];
    if (value === undefined) continue;
    if (typeof value !== 'string') throw new AppError('invalid_request', `${name} must be given once`);
    query.set(name, value);
  }
  return query;
}
