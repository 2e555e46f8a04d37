import {
  checkShape,
  COMPANY_LOCATION_SHAPE,
  ENRICHED_RECORD_SHAPE,
  EXPERIENCE_LOCATION_SHAPE,
  LOCATION_SHAPE,
  normalizeRecord,
  validateImportRecord,
  type EnrichedRecord,
} from './enriched-record.js';
import type { ShapeType } from './shape.js';

// Compile-time: the TypeScript types and the shape descriptor describe the same record
// (tsc fails here when a field is added to one and not the other).
type SameType<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const typesMatchShape: SameType<EnrichedRecord, ShapeType<typeof ENRICHED_RECORD_SHAPE>> = true;

const ID = '5f1a2b3c4d5e6f7a8b9c0d1e';

describe('the §2.3 shape', () => {
  it('when read, then it has exactly the spec members, in the spec order', () => {
    expect(typesMatchShape).toBe(true);
    expect(Object.keys(ENRICHED_RECORD_SHAPE.fields)).toEqual([
      'profile', 'traits', 'social', 'company', 'organization', 'job', 'location',
      'location_names', 'street_addresses', 'regions', 'experience', 'interests', 'skills', 'device',
    ]);
  });

  it('when read, then the three location variants differ only as the spec says', () => {
    const top = Object.keys(LOCATION_SHAPE.fields);
    expect(top).toEqual(['name', 'city', 'state', 'locality', 'metro', 'region', 'country', 'continent', 'street_address', 'address_line_2', 'postal_code', 'geo', 'last_updated']);
    expect(Object.keys(COMPANY_LOCATION_SHAPE.fields)).toEqual(top.filter((k) => k !== 'last_updated'));
    expect(Object.keys(EXPERIENCE_LOCATION_SHAPE.fields)).toEqual(top.filter((k) => !['city', 'state', 'last_updated'].includes(k)));
    expect(ENRICHED_RECORD_SHAPE.fields.company.fields.location).toBe(COMPANY_LOCATION_SHAPE);
    expect(ENRICHED_RECORD_SHAPE.fields.experience.element.fields.company.fields.location).toBe(EXPERIENCE_LOCATION_SHAPE);
  });

  it('when read, then fields shown only as null are marked null-in-shape', () => {
    const { traits, organization, job, experience } = ENRICHED_RECORD_SHAPE.fields;
    const unshown = (fields: Record<string, { kind: string }>) => Object.keys(fields).filter((k) => fields[k]!.kind === 'null-in-shape');
    expect(unshown(traits.fields)).toEqual(['middle_initial', 'middle_name', 'home_owner', 'married', 'children', 'email_status', 'extrapolated_email_confidence']);
    expect(unshown(organization.fields)).toEqual([
      'funding_url', 'traffic_ranking', 'publicly_traded_symbol', 'publicly_traded_exchange',
      'organization_headcount_six_month_growth', 'organization_headcount_twelve_month_growth', 'organization_headcount_twenty_four_month_growth',
    ]);
    expect(unshown(job.fields)).toEqual(['sub_role']);
    expect(unshown(experience.element.fields.title.fields)).toEqual(['sub_role']);
    expect(unshown(LOCATION_SHAPE.fields)).toEqual(['metro', 'street_address', 'address_line_2', 'postal_code', 'last_updated']);
  });
});

describe('normalizeRecord', () => {
  it('when the record is empty, then every member and field of §2.3 is present, null or empty', () => {
    const record = normalizeRecord({});
    expect(checkShape(record, ENRICHED_RECORD_SHAPE)).toEqual([]);
    expect(record.social.pronet).toEqual({ id: null, url: null, username: null });
    expect(record.device).toEqual({ type: null });
    expect(record.company.location.city).toBeNull();
    expect(record.organization.funding_events).toEqual([]);
    expect(record.organization.industry_tag_hash).toEqual({});
    expect(record.experience).toEqual([]);
  });

  it('when the input is not an object, then the result is the empty record', () => {
    expect(normalizeRecord('nonsense')).toEqual(normalizeRecord({}));
    expect(normalizeRecord(null)).toEqual(normalizeRecord({}));
  });

  it('when the record is partial, then given values are kept and the rest filled in', () => {
    const record = normalizeRecord({ profile: { id: ID }, traits: { first_name: 'Ada', phone_numbers: ['+14155550134'] }, company: { name: 'Acme' } });
    expect(record.profile).toEqual({ id: ID, alias: null, email: null });
    expect(record.traits.first_name).toBe('Ada');
    expect(record.traits.phone_numbers).toEqual(['+14155550134']);
    expect(record.company.name).toBe('Acme');
    expect(record.company.pronet).toEqual({ url: null, id: null });
    expect(checkShape(record, ENRICHED_RECORD_SHAPE)).toEqual([]);
  });

  it('when values have a type the spec does not give, then lossless ones are coerced and others become null', () => {
    const record = normalizeRecord({
      traits: { birth_year: '1985', emails: 'ada@acme.co' },
      company: { founded: '2015', name: 12 },
      organization: { snippets_loaded: 'false', estimated_num_employees: 'about 50', languages: 'English' },
    });
    expect(record.traits.birth_year).toBe(1985);
    expect(record.traits.emails).toEqual([]);
    expect(record.company.founded).toBe(2015);
    expect(record.company.name).toBe('12');
    expect(record.organization.snippets_loaded).toBe(false);
    expect(record.organization.estimated_num_employees).toBeNull();
    expect(record.organization.languages).toEqual(['English']);
  });

  it('when experience elements are partial, then each is normalized to the element shape', () => {
    const record = normalizeRecord({ experience: [{ company: { name: 'Acme', location: { name: 'Oslo', city: 'Oslo' } }, start_date: '2020-01', is_primary: true, bonus: 1 }, 'junk'] });
    expect(record.experience).toHaveLength(1);
    const [job] = record.experience;
    expect(job!.company.name).toBe('Acme');
    expect(job!.company.location).not.toHaveProperty('city');
    expect(job!.company.location.name).toBe('Oslo');
    expect(job!.end_date).toBeNull();
    expect(job!.title).toEqual({ name: null, role: null, sub_role: null, levels: [] });
    expect(job).not.toHaveProperty('bonus');
    expect(checkShape(record, ENRICHED_RECORD_SHAPE)).toEqual([]);
  });

  it('when the record has fields outside the spec, then they are not in the result', () => {
    const record = normalizeRecord({ internal_score: 9, traits: { ssn: 'x' }, organization: { owned_by_organization: { id: 'o', secret: 1 } } });
    expect(checkShape(record, ENRICHED_RECORD_SHAPE)).toEqual([]);
    expect(JSON.stringify(record)).not.toMatch(/internal_score|ssn|secret/);
  });

  it('when normalized, then keys come in the spec order whatever the input order', () => {
    const record = normalizeRecord({ device: { type: 'mobile' }, profile: { email: 'a@b.co', id: ID } });
    expect(Object.keys(record)[0]).toBe('profile');
    expect(Object.keys(record.profile)).toEqual(['id', 'alias', 'email']);
  });
});

describe('validateImportRecord', () => {
  it('when the line has a 24-hex profile.id, then the normalized record and the lower-cased id are returned', () => {
    const result = validateImportRecord({ profile: { id: ID.toUpperCase() }, traits: { first_name: 'Ada' } });
    expect(result).toMatchObject({ ok: true, personId: ID });
    if (!result.ok) throw new Error('expected ok');
    expect(result.record.profile.id).toBe(ID);
    expect(result.record.traits.first_name).toBe('Ada');
    expect(checkShape(result.record, ENRICHED_RECORD_SHAPE)).toEqual([]);
  });

  it('when the line is not an object, then the error says so', () => {
    expect(validateImportRecord([1, 2])).toEqual({ ok: false, error: 'each line must be a JSON object (an enriched record)' });
    expect(validateImportRecord('x')).toMatchObject({ ok: false });
  });

  it('when profile.id is missing, then the error names it', () => {
    expect(validateImportRecord({ traits: {} })).toEqual({ ok: false, error: "profile.id is required: the person's 24-hex object id" });
    expect(validateImportRecord({ profile: { email: 'a@b.co' } })).toMatchObject({ ok: false, error: expect.stringContaining('profile.id is required') });
  });

  it('when profile.id is not 24 hex characters, then the error shows the value', () => {
    expect(validateImportRecord({ profile: { id: 'abc' } })).toEqual({ ok: false, error: 'profile.id must be 24 hexadecimal characters, got "abc"' });
    expect(validateImportRecord({ profile: { id: 12345 } })).toMatchObject({ ok: false, error: expect.stringContaining('got 12345') });
    expect(validateImportRecord({ profile: { id: `${ID}0` } })).toMatchObject({ ok: false });
  });
});
