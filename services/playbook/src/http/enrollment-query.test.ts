import { encodeCursor } from '@glimpse/http';
import { parseEnrollmentQuery } from './enrollment-query';

describe('parseEnrollmentQuery', () => {
  it('when nothing is given, then every status, 50 per page, from the newest', () => {
    expect(parseEnrollmentQuery({})).toEqual({ limit: 50, after: null });
  });

  it('when status, limit and cursor are given, then each is parsed', () => {
    const at = new Date('2026-11-22T18:00:00.000Z');
    const id = '3f1c2a4e-8b7d-4c2a-9e1f-0a1b2c3d4e5f';
    expect(parseEnrollmentQuery({ status: 'stopped', limit: '10', cursor: encodeCursor({ at, id }) })).toEqual({
      status: 'stopped',
      limit: 10,
      after: { at, id },
    });
  });

  it.each([
    [{ status: 'paused' }, 'status must be active or stopped'],
    [{ status: '' }, 'status must be active or stopped'],
    [{ sort: 'asc' }, '"sort"'],
    [{ limit: '500' }, 'limit'],
  ])('when the query is %p, then it is invalid_request', (query, message) => {
    expect(() => parseEnrollmentQuery(query)).toThrow(expect.objectContaining({ code: 'invalid_request', message: expect.stringContaining(message) }));
  });
});
