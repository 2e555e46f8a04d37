import { generatePerson } from './demo-persons.js';
import { ENRICHED_RECORD_SHAPE } from './enriched-record-shape.js';
import type { EnrichedRecord } from './enriched-record.js';
import { normalizeRecord } from './normalize-record.js';
import { checkShape, conformToShape, conforms, f, findNullTypedFields } from './shape.js';

const contact = f.object({
  name: f.string(),
  born: f.integer,
  active: f.boolean,
  extra: f.nullInShape,
  phones: f.stringArray,
  tags: f.array,
  emails: f.objectArray({ address: f.string('email'), type: f.string() }),
  tagIds: f.stringMap,
  home: f.object({ city: f.string(), geo: f.string('geo') }),
});

describe('conformToShape', () => {
  it('when fields are missing, then scalars are null, lists empty and objects all-null', () => {
    expect(conformToShape({}, contact)).toEqual({
      name: null,
      born: null,
      active: null,
      extra: null,
      phones: [],
      tags: [],
      emails: [],
      tagIds: {},
      home: { city: null, geo: null },
    });
  });

  it('when a value can be read as the field type without loss, then it is coerced', () => {
    const result = conformToShape({ name: 42, born: ' 1985 ', active: 'TRUE', phones: '4155550134', tagIds: { a: 7 } }, contact);
    expect(result).toMatchObject({ name: '42', born: 1985, active: true, phones: ['4155550134'], tagIds: { a: '7' } });
  });

  it('when a value cannot be read without loss, then it becomes null or is dropped', () => {
    const result = conformToShape(
      { name: { first: 'A' }, born: 1985.5, active: 'yes', extra: { nested: true }, phones: ['ok', { no: 1 }, 3], emails: ['not an object', { address: 'a@b.co' }], home: 'Paris' },
      contact,
    );
    expect(result).toMatchObject({
      name: null,
      born: null,
      active: null,
      extra: null,
      phones: ['ok', '3'],
      emails: [{ address: 'a@b.co', type: null }],
      home: { city: null, geo: null },
    });
  });

  it('when the input has fields the shape does not name, then they are dropped at every level', () => {
    const result = conformToShape({ secret: 1, home: { city: 'Oslo', secret: 2 }, emails: [{ address: 'a@b.co', type: 'work', secret: 3 }] }, contact);
    expect(JSON.stringify(result)).not.toContain('secret');
  });

  it('when a field is shown only as null, then any JSON scalar is kept as it is', () => {
    expect(conformToShape({ extra: 'x' }, contact)).toMatchObject({ extra: 'x' });
    expect(conformToShape({ extra: 3 }, contact)).toMatchObject({ extra: 3 });
    expect(conformToShape({ extra: false }, contact)).toMatchObject({ extra: false });
  });

  it('when an array has no element type, then its JSON elements are kept deep-copied', () => {
    const tags = ['a', 1, { b: [true, null] }];
    const result = conformToShape({ tags }, contact) as { tags: unknown[] };
    expect(result.tags).toEqual(tags);
    expect(result.tags).not.toBe(tags);
  });
});

describe('checkShape', () => {
  const valid = conformToShape({ name: 'Ann', emails: [{ address: 'ann@x.co', type: 'work' }] }, contact) as Record<string, unknown>;

  it('when the value matches the shape, then there is no violation', () => {
    expect(checkShape(valid, contact)).toEqual([]);
  });

  it('when a field is missing, then it is reported by its path', () => {
    const { born: _born, ...withoutBorn } = valid;
    expect(checkShape(withoutBorn, contact)).toEqual(['born: missing']);
  });

  it('when a field has the wrong type, then it is reported with what was expected', () => {
    expect(checkShape({ ...valid, born: '1985' }, contact)).toEqual(['born: expected integer or null, got string']);
    expect(checkShape({ ...valid, phones: null }, contact)).toEqual(['phones: expected array of strings, got null']);
  });

  it('when a nested element has the wrong type, then its path names the element', () => {
    expect(checkShape({ ...valid, phones: ['ok', 5] }, contact)).toEqual(['phones[1]: expected string, got integer']);
    expect(checkShape({ ...valid, emails: [{ address: 7, type: 'work' }] }, contact)).toEqual(['emails[0].address: expected string or null, got integer']);
    expect(checkShape({ ...valid, home: { city: 'Oslo' } }, contact)).toEqual(['home.geo: missing']);
  });

  it('when a field is not in the shape, then it is reported', () => {
    expect(checkShape({ ...valid, home: { city: null, geo: null, zip: '0150' } }, contact)).toEqual(['home.zip: not in the spec shape']);
  });

  it('when formats are checked, then a string out of its stated format is reported', () => {
    const value = { ...valid, emails: [{ address: 'nope', type: 'work' }], home: { city: 'Oslo', geo: '59.91,10.75' } };
    expect(checkShape(value, contact)).toEqual([]);
    expect(checkShape(value, contact, { formats: true })).toEqual(['emails[0].address: "nope" is not a valid email']);
  });
});

describe('findNullTypedFields', () => {
  it('when typed fields are null, then their paths are listed, null-in-shape fields excepted', () => {
    const value = conformToShape({ name: 'Ann', born: 1990, active: true, emails: [{ address: 'a@b.co' }], home: { city: 'Oslo', geo: '1,2' } }, contact);
    expect(findNullTypedFields(value, contact)).toEqual(['emails[0].type']);
  });
});

describe('conforms', () => {
  const records = Array.from({ length: 20 }, (_, i) => generatePerson(i, 11));

  it('when a record is already in the served form (a demo person, or any normalized record), then it conforms and normalizing it changes nothing', () => {
    for (const record of [...records, normalizeRecord({}), normalizeRecord({ profile: { id: 'a'.repeat(24) }, traits: { birth_year: '1980' } })]) {
      expect(conforms(record, ENRICHED_RECORD_SHAPE)).toBe(true);
      expect(JSON.stringify(normalizeRecord(record))).toBe(JSON.stringify(record));
    }
  });

  it('when a record differs from its normalized form in any way, then it does not conform', () => {
    const [person] = records as [EnrichedRecord];
    const { profile, ...rest } = person;
    const variants: unknown[] = [
      { ...rest, profile }, // members out of order
      { ...person, extra: 1 }, // a field outside the spec
      { ...person, device: {} }, // a missing field
      { ...person, traits: { ...person.traits, birth_year: '1980' } }, // a coercible value
      { ...person, traits: { ...person.traits, photo_url: 'images.example/p.jpg' } }, // a URL without scheme
      { ...person, traits: { ...person.traits, birth_date: '1980-13-01' } }, // out of its format
      { ...person, skills: 'sql' }, // a lone string for a list
    ];
    for (const variant of variants) {
      expect(conforms(variant, ENRICHED_RECORD_SHAPE)).toBe(false);
      // Key order counts: the served text is what is compared.
      expect(JSON.stringify(normalizeRecord(variant))).not.toBe(JSON.stringify(variant));
    }
  });
});
