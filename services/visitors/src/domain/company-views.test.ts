import {
  companyFilterSchema,
  companyPageOf,
  companyWindow,
  decodeCompanyCursor,
  encodeCompanyCursor,
  topPages,
  zeroFilledDays,
  type CompanyCounts,
} from './company-views.js';

describe('the companies view', () => {
  const now = new Date('2026-11-28T12:00:00.000Z');

  it('reads a window of the last 30 days by default and refuses one that runs backwards or is too long', () => {
    expect(companyWindow({}, now)).toEqual({ site: null, since: new Date('2026-10-29T12:00:00.000Z'), until: now });
    expect(() => companyWindow({ since: '2026-11-28T12:00:00.000Z', until: '2026-11-01T00:00:00.000Z' }, now)).toThrow('since must be before until');
    expect(() => companyWindow({ since: '2025-01-01T00:00:00.000Z' }, now)).toThrow('at most 400 days');
  });

  it('takes only company network types and a two-letter country', () => {
    expect(companyFilterSchema.parse({ country: 'gb', network_type: 'education', min_visits: '2' })).toEqual({
      country: 'GB',
      network_type: 'education',
      min_visits: 2,
    });
    expect(companyFilterSchema.safeParse({ network_type: 'isp' }).success).toBe(false);
    expect(companyFilterSchema.safeParse({ country: 'GBR' }).success).toBe(false);
  });

  it('gives back the cursor it made and refuses another', () => {
    const c = { value: '2026-11-27T10:00:00.000Z', key: 'acme.example' };
    expect(decodeCompanyCursor(encodeCompanyCursor(c))).toEqual(c);
    expect(() => decodeCompanyCursor('bm90IGpzb24')).toThrow('cursor is not valid');
  });

  it('ranks pages by views then path, and fills the days without visits', () => {
    expect(
      topPages(
        [
          { path: '/b', views: 2 },
          { path: '/a', views: 2 },
          { path: '/c', views: 5 },
        ],
        2,
      ),
    ).toEqual([
      { path: '/c', views: 5 },
      { path: '/a', views: 2 },
    ]);
    const window = { site: null, since: new Date('2026-11-26T18:00:00.000Z'), until: new Date('2026-11-28T01:00:00.000Z') };
    expect(zeroFilledDays([{ day: '2026-11-27', visitors: 1, sessions: 2, page_views: 3 }], window).map((d) => [d.day, d.sessions])).toEqual([
      ['2026-11-26', 0],
      ['2026-11-27', 2],
      ['2026-11-28', 0],
    ]);
  });

  it('cuts pages newest first (or most viewed first) and goes on after the cursor without repeating a company', () => {
    const row = (key: string, lastMinute: number, pageViews: number, sessions = 1): CompanyCounts => ({
      key,
      visitors: 1,
      identified: 0,
      page_views: pageViews,
      sessions,
      first_visit: '2026-11-01T00:00:00.000Z',
      last_visit: new Date(Date.UTC(2026, 10, 27, 10, lastMinute)).toISOString(),
    });
    const rows = [row('b', 5, 1), row('a', 5, 9), row('c', 9, 3, 2), row('d', 1, 3)];
    const page = (after: ReturnType<typeof decodeCompanyCursor> | null, sort: 'last_visit' | 'page_views' = 'last_visit') =>
      companyPageOf(rows, { sort, limit: 2, after, minVisits: 1, keys: null }).map((r) => r.key);
    expect(page(null)).toEqual(['c', 'a', 'b']);
    expect(page({ key: 'a', value: rows[1]!.last_visit })).toEqual(['b', 'd']);
    expect(page(null, 'page_views')).toEqual(['a', 'c', 'd']);
    expect(page({ key: 'c', value: '3' }, 'page_views')).toEqual(['d', 'b']);
    expect(companyPageOf(rows, { sort: 'last_visit', limit: 10, after: null, minVisits: 2, keys: null }).map((r) => r.key)).toEqual(['c']);
    expect(companyPageOf(rows, { sort: 'last_visit', limit: 10, after: null, minVisits: 1, keys: ['d', 'b'] }).map((r) => r.key)).toEqual(['b', 'd']);
  });
});
