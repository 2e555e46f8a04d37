import type { CompanyRecord } from '@glimpse/api';
import { companiesCsv, csvField, looksLikeDomain, withFirmographics, type CompanyRowIn } from './company-list.js';

const row: CompanyRowIn = {
  key: 'acme.example',
  name: 'ACME (from the network)',
  domain: 'acme.example',
  visitors: 3,
  identified: 1,
  page_views: 9,
  sessions: 4,
  first_visit: '2026-11-20T10:00:00.000Z',
  last_visit: '2026-11-27T10:00:00.000Z',
  top_pages: [
    { path: '/pricing', views: 4 },
    { path: '/docs', views: 2 },
  ],
  location: { country: 'GB', region: 'England', city: 'London', time_zone: 'Europe/London' },
  network_type: 'business',
};
const acme: CompanyRecord = {
  domain: 'acme.example',
  name: 'Acme, Inc.',
  industry: 'Software',
  size: '51-200',
  employees: 120,
  founded: 2001,
  location: { country: 'US', region: 'CA', city: 'San Francisco' },
  pronet_url: null,
};

describe('the companies view in the gateway', () => {
  it("joins a company's firmographics and takes its record's name", () => {
    expect(withFirmographics(row, new Map([['acme.example', acme]]))).toMatchObject({ name: 'Acme, Inc.', firmographics: acme });
    expect(withFirmographics({ ...row, key: 'acme corp', domain: null, name: null }, new Map())).toMatchObject({ name: 'acme corp', firmographics: null });
  });

  it('tells a domain key from a name key', () => {
    expect(looksLikeDomain('acme.example')).toBe(true);
    expect(looksLikeDomain('acme corp')).toBe(false);
    expect(looksLikeDomain('acme')).toBe(false);
  });

  it('writes CSV with quoting and without spreadsheet formulas', () => {
    expect(csvField('a, "b"')).toBe('"a, ""b"""');
    expect(csvField('=HYPERLINK("x")')).toBe('"\'=HYPERLINK(""x"")"');
    expect(csvField(null)).toBe('');
    const csv = companiesCsv([withFirmographics(row, new Map([['acme.example', acme]]))]).split('\r\n');
    expect(csv[0]).toBe(
      'name,domain,industry,size,employees,country,region,city,network_type,visitors,identified,sessions,page_views,first_visit,last_visit,top_pages',
    );
    expect(csv[1]).toBe(
      '"Acme, Inc.",acme.example,Software,51-200,120,GB,England,London,business,3,1,4,9,2026-11-20T10:00:00.000Z,2026-11-27T10:00:00.000Z,/pricing /docs',
    );
  });
});
