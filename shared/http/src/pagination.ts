// Keyset pagination for list endpoints that answer newest first: an opaque cursor (base64url of
// `<ISO time>|<id>`) naming the last item of a page, and the strict query a list endpoint takes.
import { AppError } from '@glimpse/errors';
import { isUuid } from '@glimpse/validation';

export interface Cursor {
  at: Date;
  id: string;
}

export const PAGE_LIMIT = { default: 50, min: 1, max: 200 } as const;

export function encodeCursor({ at, id }: Cursor): string {
  return Buffer.from(`${at.toISOString()}|${id}`).toString('base64url');
}

export function decodeCursor(value: string): Cursor {
  const invalid = new AppError('invalid_request', 'cursor is not valid: pass the nextCursor of a previous page as it was');
  if (!/^[A-Za-z0-9_-]{1,200}$/.test(value)) throw invalid;
  const [time, id, ...rest] = Buffer.from(value, 'base64url').toString('utf8').split('|');
  if (time === undefined || id === undefined || rest.length > 0 || !isUuid(id)) throw invalid;
  const at = new Date(time);
  // The round trip rejects anything that is not exactly a time this API wrote.
  if (Number.isNaN(at.getTime()) || at.toISOString() !== time) throw invalid;
  return { at, id };
}

/** A page from rows read one past `limit`: the first `limit` of them, and the cursor of the last when there were more. */
export function cutPage<T, C>(rows: readonly T[], limit: number, cursorOf: (last: T) => C): { items: T[]; next: C | null } {
  const items = rows.slice(0, limit);
  const last = items[items.length - 1];
  return { items, next: rows.length > limit && last !== undefined ? cursorOf(last) : null };
}

export interface PageQuery {
  limit: number;
  cursor: Cursor | null;
}

type Query = Record<string, unknown>;

/** One value per parameter, and only the parameters the endpoint takes. */
export function queryStrings(query: Query, allowed: readonly string[]): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = {};
  for (const [name, value] of Object.entries(query)) {
    if (!allowed.includes(name)) {
      throw new AppError('invalid_request', `unknown query parameter "${name}"; this endpoint takes ${allowed.join(', ')}`);
    }
    if (typeof value !== 'string') throw new AppError('invalid_request', `query parameter "${name}" must be given once`);
    out[name] = value;
  }
  return out;
}

/** limit (1..200, default 50) and cursor, plus whichever other parameters the endpoint names. */
export function parsePageQuery(query: Query, others: readonly string[] = []): PageQuery & { others: Record<string, string | undefined> } {
  const { limit, cursor, ...rest } = queryStrings(query, ['limit', 'cursor', ...others]);
  let parsedLimit: number = PAGE_LIMIT.default;
  if (limit !== undefined) {
    parsedLimit = /^\d{1,4}$/.test(limit) ? Number(limit) : NaN;
    if (!(parsedLimit >= PAGE_LIMIT.min && parsedLimit <= PAGE_LIMIT.max)) {
      throw new AppError('invalid_request', `limit must be an integer from ${PAGE_LIMIT.min} to ${PAGE_LIMIT.max}`);
    }
  }
  return { limit: parsedLimit, cursor: cursor === undefined ? null : decodeCursor(cursor), others: rest };
}
