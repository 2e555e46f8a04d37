import { companyFilterSchema, companyWindow, decodeCompanyCursor, encodeCompanyCursor, topPages, zeroFilledDays } from './company-views.js';

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
});
