import { z } from 'zod';
import { conformerOf, findNullTypedFields, inSchemaOrder } from './conform-record.js';

// A small schema with one field of every kind the records use.
const contact = z.strictObject({
  name: z.string().nullable(),
  born: z.int().nullable(),
  active: z.boolean().nullable(),
  extra: z.union([z.string(), z.number(), z.boolean()]).nullable(),
  phones: z.array(z.string()),
  tags: z.array(z.unknown()),
  emails: z.array(z.strictObject({ address: z.email().nullable(), type: z.string().nullable() })),
  tagIds: z.record(z.string(), z.string()),
  site: z.string().nullable().meta({ format: 'uri' }),
  home: z.strictObject({
    city: z.string().nullable(),
    geo: z
      .string()
      .regex(/^-?[0-9]+,-?[0-9]+$/)
      .nullable(),
  }),
});
const conform = conformerOf(contact);

describe('conformerOf', () => {
  it('when fields are missing, then scalars are null, lists empty and objects all-null, and the result passes the schema', () => {
    const result = conform({});
    expect(result).toEqual({
      name: null,
      born: null,
      active: null,
      extra: null,
      phones: [],
      tags: [],
      emails: [],
      tagIds: {},
      site: null,
      home: { city: null, geo: null },
    });
    expect(contact.safeParse(result).success).toBe(true);
  });

  it('when a value can be read as the field type without loss, then it is coerced', () => {
    const result = conform({ name: 42, born: ' 1985 ', active: 'TRUE', phones: '4155550134', tagIds: { a: 7 } });
    expect(result).toMatchObject({ name: '42', born: 1985, active: true, phones: ['4155550134'], tagIds: { a: '7' } });
  });

  it('when a value cannot be read without loss, then it becomes null or is dropped', () => {
    const result = conform({
      name: { first: 'A' },
      born: 1985.5,
      active: 'yes',
      extra: { nested: true },
      phones: ['ok', { no: 1 }, 3],
      emails: ['not an object', { address: 'a@b.co' }],
      home: 'Paris',
    });
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

  it('when a string is out of the format its schema states, then it is null', () => {
    expect(conform({ emails: [{ address: 'nope', type: 'work' }], home: { city: 'Oslo', geo: 'north' } })).toMatchObject({
      emails: [{ address: null, type: 'work' }],
      home: { city: 'Oslo', geo: null },
    });
    expect(conform({ home: { geo: '59,10' } })).toMatchObject({ home: { geo: '59,10' } });
  });

  it('when a URI has no scheme, then it is read as https and served in WHATWG form; one that is no URL is null', () => {
    expect(conform({ site: 'Example.com/a b' })).toMatchObject({ site: 'https://example.com/a%20b' });
    expect(conform({ site: 'not a url' })).toMatchObject({ site: null });
  });

  it('when the input has fields the schema does not name, then they are dropped at every level', () => {
    const result = conform({ secret: 1, home: { city: 'Oslo', secret: 2 }, emails: [{ address: 'a@b.co', type: 'work', secret: 3 }] });
    expect(JSON.stringify(result)).not.toContain('secret');
  });

  it('when a field is shown only as null, then any JSON scalar is kept as it is', () => {
    expect(conform({ extra: 'x' })).toMatchObject({ extra: 'x' });
    expect(conform({ extra: 3 })).toMatchObject({ extra: 3 });
    expect(conform({ extra: false })).toMatchObject({ extra: false });
  });

  it('when an array has no element type, then its JSON elements are kept deep-copied', () => {
    const tags = ['a', 1, { b: [true, null] }];
    const result = conform({ tags }) as { tags: unknown[] };
    expect(result.tags).toEqual(tags);
    expect(result.tags).not.toBe(tags);
  });

  it('when the schema has a type there is no rule for, then it throws at once, not per value', () => {
    expect(() => conformerOf(z.strictObject({ when: z.date() }))).toThrow('no rule to conform a date');
    expect(() => conformerOf(z.strictObject({ n: z.number().optional() }))).toThrow('no rule to conform a optional');
  });
});

describe('inSchemaOrder', () => {
  it('when every object (in arrays too) lists its members in the schema order, then true; else false', () => {
    const value = conform({ emails: [{ address: 'a@b.co', type: 'work' }] }) as Record<string, unknown>;
    expect(inSchemaOrder(value, contact)).toBe(true);
    const { name, ...rest } = value;
    expect(inSchemaOrder({ ...rest, name }, contact)).toBe(false);
    expect(inSchemaOrder({ ...value, emails: [{ type: 'work', address: 'a@b.co' }] }, contact)).toBe(false);
    expect(inSchemaOrder({ ...value, home: { geo: null, city: null } }, contact)).toBe(false);
  });
});

describe('findNullTypedFields', () => {
  it('when typed fields are null, then their paths are listed, fields shown only as null excepted', () => {
    const value = conform({
      name: 'Ann',
      born: 1990,
      active: true,
      site: 'https://a.example/',
      emails: [{ address: 'a@b.co' }],
      home: { city: 'Oslo', geo: '1,2' },
    });
    expect(findNullTypedFields(value, contact)).toEqual(['emails[0].type']);
  });
});
