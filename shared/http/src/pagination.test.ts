import { AppError } from '@glimpse/errors';
import { decodeCursor, encodeCursor, parsePageQuery } from './pagination';

const id = '3f1c2a4e-8b7d-4c2a-9e1f-0a1b2c3d4e5f';

function rejected(fn: () => unknown): AppError {
  try {
    fn();
  } catch (err) {
    return err as AppError;
  }
  throw new Error('expected it to throw');
}

describe('cursor', () => {
  it('when a cursor is encoded, then it is opaque base64url and decodes to the same time and id', () => {
    const at = new Date('2026-11-22T18:00:00.123Z');
    const cursor = encodeCursor({ at, id });
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(cursor).not.toContain(id);
    expect(decodeCursor(cursor)).toEqual({ at, id });
  });

  it.each([
    ['not base64url', 'abc$%'],
    ['no separator', Buffer.from('2026-11-22T18:00:00.123Z').toString('base64url')],
    ['a bad time', Buffer.from(`yesterday|${id}`).toString('base64url')],
    ['a time not written by the API', Buffer.from(`2026-11-22|${id}`).toString('base64url')],
    ['an id that is not a UUID', Buffer.from('2026-11-22T18:00:00.123Z|1 OR 1=1').toString('base64url')],
    ['extra parts', Buffer.from(`2026-11-22T18:00:00.123Z|${id}|x`).toString('base64url')],
    ['nothing', ''],
  ])('when a cursor is %s, then it is invalid_request', (_what, value) => {
    const err = rejected(() => decodeCursor(value));
    expect(err).toBeInstanceOf(AppError);
    expect(err.code).toBe('invalid_request');
    expect(err.message).toContain('cursor');
  });
});

describe('parsePageQuery', () => {
  it('when nothing is given, then the limit is 50 and there is no cursor', () => {
    expect(parsePageQuery({})).toEqual({ limit: 50, cursor: null, others: {} });
  });

  it('when limit, cursor and a named parameter are given, then each is parsed', () => {
    const at = new Date('2026-01-01T00:00:00.000Z');
    expect(parsePageQuery({ limit: '200', cursor: encodeCursor({ at, id }), status: 'active' }, ['status'])).toEqual({
      limit: 200,
      cursor: { at, id },
      others: { status: 'active' },
    });
    expect(parsePageQuery({ limit: '1' }).limit).toBe(1);
  });

  it.each([['0'], ['201'], ['-1'], ['1.5'], ['ten'], [''], ['99999']])('when limit is %p, then it is invalid_request', (limit) => {
    expect(rejected(() => parsePageQuery({ limit })).message).toContain('limit must be an integer from 1 to 200');
  });

  it('when a parameter is unknown or repeated, then it is invalid_request naming it', () => {
    expect(rejected(() => parsePageQuery({ statuss: 'active' }, ['status'])).message).toContain('"statuss"');
    expect(rejected(() => parsePageQuery({ limit: ['1', '2'] })).message).toContain('"limit" must be given once');
  });
});
