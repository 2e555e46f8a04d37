import { companyLocationSchema, experienceLocationSchema, locationSchema } from '@glimpse/api';
import { generatePerson } from '../demo/demo-persons.js';
import { enrichedRecordSchema, isServedRecord, normalizeRecord, recordViolations, validateImportRecord, type EnrichedRecord } from './enriched-record.js';

const ID = '5f1a2b3c4d5e6f7a8b9c0d1e';
const { shape } = enrichedRecordSchema;
const keysOf = (schema: { shape: object }) => Object.keys(schema.shape);
/** The members whose type the interface does not show (a nullable union of the JSON scalars). */
const unshown = (schema: { shape: Record<string, { _zod: { def: { type: string; innerType?: { _zod: { def: { type: string } } } } } }> }) =>
  Object.keys(schema.shape).filter((k) => schema.shape[k]!._zod.def.innerType?._zod.def.type === 'union');

describe('the api.md §2.3 schema', () => {
  it('when read, then it has exactly the interface members, in the interface order', () => {
    expect(keysOf(enrichedRecordSchema)).toEqual([
      'profile',
      'traits',
      'social',
      'company',
      'organization',
      'job',
      'location',
      'location_names',
      'street_addresses',
      'regions',
      'experience',
      'interests',
      'skills',
      'device',
    ]);
  });

  it('when read, then the three location variants differ only as the interface says', () => {
    const top = keysOf(locationSchema);
    expect(top).toEqual([
      'name',
      'city',
      'state',
      'locality',
      'metro',
      'region',
      'country',
      'continent',
      'street_address',
      'address_line_2',
      'postal_code',
      'geo',
      'last_updated',
    ]);
    expect(keysOf(companyLocationSchema)).toEqual(top.filter((k) => k !== 'last_updated'));
    expect(keysOf(experienceLocationSchema)).toEqual(top.filter((k) => !['city', 'state', 'last_updated'].includes(k)));
    expect(shape.company.shape.location).toBe(companyLocationSchema);
    expect(shape.experience.element.shape.company.shape.location).toBe(experienceLocationSchema);
  });

  it('when read, then fields shown only as null take any JSON scalar', () => {
    expect(unshown(shape.traits)).toEqual([
      'middle_initial',
      'middle_name',
      'home_owner',
      'married',
      'children',
      'email_status',
      'extrapolated_email_confidence',
    ]);
    expect(unshown(shape.organization)).toEqual([
      'funding_url',
      'traffic_ranking',
      'publicly_traded_symbol',
      'publicly_traded_exchange',
      'organization_headcount_six_month_growth',
      'organization_headcount_twelve_month_growth',
      'organization_headcount_twenty_four_month_growth',
    ]);
    expect(unshown(shape.job)).toEqual(['sub_role']);
    expect(unshown(shape.experience.element.shape.title)).toEqual(['sub_role']);
    expect(unshown(locationSchema)).toEqual(['metro', 'street_address', 'address_line_2', 'postal_code', 'last_updated']);
  });
});

describe('normalizeRecord', () => {
  it('when the record is empty, then every member and field of api.md §2.3 is present, null or empty', () => {
    const record = normalizeRecord({});
    expect(recordViolations(record)).toEqual([]);
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
    expect(recordViolations(record)).toEqual([]);
  });

  it('when values have a type the interface does not give, then lossless ones are coerced and others become null', () => {
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
    const record = normalizeRecord({
      experience: [{ company: { name: 'Acme', location: { name: 'Oslo', city: 'Oslo' } }, start_date: '2020-01', is_primary: true, bonus: 1 }, 'junk'],
    });
    expect(record.experience).toHaveLength(1);
    const [job] = record.experience;
    expect(job!.company.name).toBe('Acme');
    expect(job!.company.location).not.toHaveProperty('city');
    expect(job!.company.location.name).toBe('Oslo');
    expect(job!.end_date).toBeNull();
    expect(job!.title).toEqual({ name: null, role: null, sub_role: null, levels: [] });
    expect(job).not.toHaveProperty('bonus');
    expect(recordViolations(record)).toEqual([]);
  });

  it('when the record has fields outside the interface, then they are not in the result', () => {
    const record = normalizeRecord({ internal_score: 9, traits: { ssn: 'x' }, organization: { owned_by_organization: { id: 'o', secret: 1 } } });
    expect(recordViolations(record)).toEqual([]);
    expect(JSON.stringify(record)).not.toMatch(/internal_score|ssn|secret/);
  });

  it('when normalized, then keys come in the interface order whatever the input order', () => {
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
    expect(recordViolations(result.record)).toEqual([]);
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

describe('isServedRecord', () => {
  const records = Array.from({ length: 20 }, (_, i) => generatePerson(i, 11));

  it('when a record is already in the served form (a demo person, or any normalized record), then it is served as given and normalizing it changes nothing', () => {
    for (const record of [...records, normalizeRecord({}), normalizeRecord({ profile: { id: 'a'.repeat(24) }, traits: { birth_year: '1980' } })]) {
      expect(isServedRecord(record)).toBe(true);
      expect(JSON.stringify(normalizeRecord(record))).toBe(JSON.stringify(record));
    }
  });

  it('when a record differs from its normalized form in any way, then it is not served as given', () => {
    const [person] = records as [EnrichedRecord];
    const { profile, ...rest } = person;
    const variants: unknown[] = [
      { ...rest, profile }, // members out of order
      { ...person, experience: person.experience.map(({ is_primary, ...e }) => ({ is_primary, ...e })) }, // an element's members out of order
      { ...person, extra: 1 }, // a field outside the interface
      { ...person, device: {} }, // a missing field
      { ...person, traits: { ...person.traits, birth_year: '1980' } }, // a coercible value
      { ...person, traits: { ...person.traits, photo_url: 'images.example/p.jpg' } }, // a URL without scheme
      { ...person, traits: { ...person.traits, photo_url: 'https://Images.example/p.jpg' } }, // a URL not in WHATWG form
      { ...person, traits: { ...person.traits, birth_date: '1980-13-01' } }, // out of its format
      { ...person, location: { ...person.location, geo: '91.5,10' } }, // a latitude past 90
      { ...person, skills: 'sql' }, // a lone string for a list
    ];
    for (const variant of variants) {
      expect(isServedRecord(variant)).toBe(false);
      // Key order counts: the served text is what is compared.
      expect(JSON.stringify(normalizeRecord(variant))).not.toBe(JSON.stringify(variant));
    }
  });

  it('when a record breaks the schema, then the violations name the path and the rule', () => {
    const person = generatePerson(3, 11);
    expect(recordViolations(person)).toEqual([]);
    const wrong = { ...person, traits: { ...person.traits, birth_year: '1985', phone_numbers: null }, profile: { ...person.profile, email: 'nope' }, extra: 1 };
    const violations = recordViolations(wrong);
    expect(violations).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^traits\.birth_year: /),
        expect.stringMatching(/^traits\.phone_numbers: /),
        expect.stringMatching(/^profile\.email: /),
        expect.stringMatching(/extra/),
      ]),
    );
    expect(violations).toHaveLength(4);
  });
});
