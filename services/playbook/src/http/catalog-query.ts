// The catalog's page query: limit as every list takes it, and a cursor naming the last name of the
// previous page (the catalog is ordered by name, not by time and id as the other lists are).
import { AppError } from '@glimpse/errors';
import { parsePageQuery, queryStrings } from '@glimpse/http';
import { EVENT_NAME_PATTERN } from '@glimpse/messaging';

export const encodeCatalogCursor = (name: string): string => Buffer.from(`name|${name}`).toString('base64url');

export function parseCatalogQuery(query: Record<string, unknown>): { limit: number; after: string | null } {
  const { limit, cursor } = queryStrings(query, ['limit', 'cursor']);
  const parsed = parsePageQuery(limit === undefined ? {} : { limit }).limit;
  if (cursor === undefined) return { limit: parsed, after: null };
  const invalid = new AppError('invalid_request', 'cursor is not valid: pass the nextCursor of a previous page as it was');
  if (!/^[\w-]{1,200}$/.test(cursor)) throw invalid;
  const decoded = Buffer.from(cursor, 'base64url').toString('utf8');
  const name = decoded.startsWith('name|') ? decoded.slice(5) : '';
  // Only a cursor this API wrote: a valid name, encoded exactly so.
  if (!EVENT_NAME_PATTERN.test(name) || encodeCatalogCursor(name) !== cursor) throw invalid;
  return { limit: parsed, after: name };
}
