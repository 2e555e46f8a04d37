import { enrichedRecordSchema, isServedUrl, visitorDetailsSchema } from './records.js';

const { shape } = enrichedRecordSchema;
const accepts = (schema: { safeParse(v: unknown): { success: boolean } }, value: unknown) => schema.safeParse(value).success;

describe('the enriched record schema (api.md §2.3)', () => {
  it('when a field has a stated format, then only values in it (or null) pass, checked in full', () => {
    const cases: [{ safeParse(v: unknown): { success: boolean } }, unknown[], unknown[]][] = [
      [shape.profile.shape.id, ['5f1a2b3c4d5e6f7a8b9c0d1e', '5F1A2B3C4D5E6F7A8B9C0D1E', null], ['5f1a', 'g'.repeat(24)]],
      [shape.profile.shape.email, ['ada@acme.co', null], ['nope', 'a@b']],
      [shape.traits.shape.birth_date, ['1985-02-28', null], ['1985-13-01', '1985-02-30x', '1985-2-1']],
      [shape.experience.element.shape.end_date, ['2020-01', null], ['2020-13', '2020-1']],
      [
        shape.organization.shape.latest_funding_round_date,
        ['2024-01-02T03:04:05Z', '2024-01-02T03:04:05.123+02:00', null],
        ['2024-01-02T03:04Z', '2024-01-02', '2024-01-02T03:04:05'],
      ],
      [shape.location.shape.geo, ['59.91,10.75', '-90,-180', null], ['91,0', '0,181', '59.91;10.75']],
      [
        shape.traits.shape.photo_url,
        ['https://images.example/p.jpg', null],
        ['images.example/p.jpg', 'https://Images.example/p.jpg', 'ftp://images.example/p', 'https://localhost/'],
      ],
    ];
    for (const [schema, good, bad] of cases) {
      for (const value of good) expect({ value, ok: accepts(schema, value) }).toEqual({ value, ok: true });
      for (const value of bad) expect({ value, ok: accepts(schema, value) }).toEqual({ value, ok: false });
    }
  });

  it('when a value has the wrong type, then it fails: null is allowed for scalars, never for lists or objects', () => {
    expect(accepts(shape.company.shape.founded, 2015)).toBe(true);
    expect(accepts(shape.company.shape.founded, '2015')).toBe(false);
    expect(accepts(shape.company.shape.founded, 2 ** 60)).toBe(false);
    expect(accepts(shape.traits.shape.phone_numbers, null)).toBe(false);
    expect(accepts(shape.traits.shape.phone_numbers, ['ok', 5])).toBe(false);
    expect(accepts(shape.device, null)).toBe(false);
    expect(accepts(shape.traits.shape.married, true)).toBe(true);
    expect(accepts(shape.traits.shape.married, { yes: true })).toBe(false);
    expect(accepts(shape.organization.shape.industry_tag_hash, { software: '5567cd4773696439b10b0000' })).toBe(true);
    expect(accepts(shape.organization.shape.industry_tag_hash, { software: 5 })).toBe(false);
  });

  it('when an object lacks a member or has one the interface does not name, then it fails', () => {
    const location = {
      name: 'Oslo',
      locality: null,
      metro: null,
      region: null,
      country: null,
      continent: null,
      street_address: null,
      address_line_2: null,
      postal_code: null,
      geo: null,
    };
    expect(accepts(shape.experience.element.shape.company.shape.location, location)).toBe(true);
    expect(accepts(shape.experience.element.shape.company.shape.location, { ...location, city: 'Oslo' })).toBe(false);
    const { geo: _geo, ...withoutGeo } = location;
    expect(accepts(shape.experience.element.shape.company.shape.location, withoutGeo)).toBe(false);
  });
});

describe('the visitor details schema (api.md §2.1)', () => {
  it('when every field is absent, then it passes; a null or a field outside the record fails', () => {
    expect(accepts(visitorDetailsSchema, {})).toBe(true);
    expect(
      accepts(visitorDetailsSchema, {
        firstName: 'Ada',
        email: 'ada@acme.co',
        pronet_url: 'https://pronet.example/in/ada',
        page_views: 3,
        last_seen_at: '2026-01-02T03:04:05.000Z',
      }),
    ).toBe(true);
    expect(accepts(visitorDetailsSchema, { firstName: null })).toBe(false);
    expect(accepts(visitorDetailsSchema, { nickname: 'A' })).toBe(false);
    expect(accepts(visitorDetailsSchema, { identified_by: { method: 'form', at: '2026-01-02T03:04:05Z', confidence: 0.9 } })).toBe(true);
    expect(accepts(visitorDetailsSchema, { identified_by: { method: 'guess', at: '2026-01-02T03:04:05Z' } })).toBe(false);
  });
});

describe('isServedUrl', () => {
  it('when a URL is absolute http(s) with a dotted host in WHATWG form, then true', () => {
    expect(isServedUrl('https://pronet.example/in/ada')).toBe(true);
    expect(isServedUrl('http://a.example/x%20y')).toBe(true);
    expect(isServedUrl('https://a.example/x y')).toBe(false);
    expect(isServedUrl('https://a.example')).toBe(false);
    expect(isServedUrl(' https://a.example/')).toBe(false);
  });
});
