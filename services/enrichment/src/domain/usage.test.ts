import { parseUsageRange, usageReport } from './usage';

const now = new Date('2026-03-15T23:59:00.000Z');

function message(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    expect((err as { code: string }).code).toBe('invalid_request');
    return (err as Error).message;
  }
  throw new Error('expected it to throw');
}

describe('parseUsageRange', () => {
  it('when no range is given, then it is the last 30 days, today (UTC) included', () => {
    expect(parseUsageRange({}, now)).toEqual({ from: '2026-02-14', to: '2026-03-15' });
  });

  it('when only to is given, then from is 29 days before it; when only from, to is today', () => {
    expect(parseUsageRange({ to: '2026-01-30' }, now)).toEqual({ from: '2026-01-01', to: '2026-01-30' });
    expect(parseUsageRange({ from: '2026-03-01' }, now)).toEqual({ from: '2026-03-01', to: '2026-03-15' });
  });

  it.each([
    [{ from: '2026-02-30' }, 'from must be a date written YYYY-MM-DD'],
    [{ to: '15/03/2026' }, 'to must be a date written YYYY-MM-DD'],
    [{ from: '2026-03-02', to: '2026-03-01' }, 'from must not be after to'],
    [{ from: '2024-01-01', to: '2025-01-01' }, 'at most 366 days'],
    [{ since: '2026-01-01' }, 'unknown query parameter "since"'],
    [{ from: ['2026-01-01', '2026-01-02'] }, '"from" must be given once'],
  ])('when the query is %p, then it is invalid_request', (query, expected) => {
    expect(message(() => parseUsageRange(query, now))).toContain(expected);
  });

  it('when a range covers exactly 366 days, then it is accepted', () => {
    expect(parseUsageRange({ from: '2024-01-01', to: '2024-12-31' }, now)).toEqual({ from: '2024-01-01', to: '2024-12-31' });
  });
});

describe('usageReport', () => {
  it('when some days have usage, then every day of the range is listed with zeros elsewhere, and totals add up', () => {
    const report = usageReport({ from: '2026-02-27', to: '2026-03-02' }, [
      { day: '2026-02-28', identityMatches: 2, enrichedRecords: 2 },
      { day: '2026-03-02', identityMatches: 1, enrichedRecords: 1 },
    ]);
    expect(report).toEqual({
      items: [
        { day: '2026-02-27', identityMatches: 0, enrichedRecords: 0 },
        { day: '2026-02-28', identityMatches: 2, enrichedRecords: 2 },
        { day: '2026-03-01', identityMatches: 0, enrichedRecords: 0 },
        { day: '2026-03-02', identityMatches: 1, enrichedRecords: 1 },
      ],
      totals: { identityMatches: 3, enrichedRecords: 3 },
    });
  });
});
