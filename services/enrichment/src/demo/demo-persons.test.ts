import { normalizeRecord, nullTypedFields, recordViolations } from '../domain/enriched-record.js';
import { generatePerson } from './demo-persons.js';
import { identitiesOf } from '../domain/identifiers.js';
import { toVisitorDetails } from '../domain/visitor-details.js';

const COUNT = 10_000;
const people = Array.from({ length: COUNT }, (_, i) => generatePerson(i));
// Field-by-field checks are slower: a sample, including far indexes and another seed.
const sample = [
  ...people.slice(0, 1500),
  ...[123_456, 1_000_000, 2 ** 40].map((i) => generatePerson(i)),
  ...Array.from({ length: 100 }, (_, i) => generatePerson(i, 31)),
];

describe('generatePerson', () => {
  it('when called twice with the same index and seed, then the records are equal', () => {
    expect(generatePerson(42)).toEqual(generatePerson(42));
    expect(generatePerson(42, 7)).toEqual(generatePerson(42, 7));
    expect(generatePerson(42, 7)).not.toEqual(generatePerson(42, 8));
  });

  it('when 10 000 people are generated, then ids, emails and phones are all unique', () => {
    const ids = new Set(people.map((p) => p.profile.id));
    expect(ids.size).toBe(COUNT);
    const identities = people.flatMap((p) => identitiesOf(p, 'US').map((x) => `${x.kind}:${x.value}`));
    expect(new Set(identities).size).toBe(identities.length);
  });

  it('when people of two seeds are generated, then their ids and emails do not overlap', () => {
    const keys = (seed: number) =>
      Array.from({ length: 500 }, (_, i) => generatePerson(i, seed)).flatMap((p) => [
        p.profile.id,
        ...identitiesOf(p, 'US')
          .filter((x) => x.kind === 'email')
          .map((x) => x.value),
      ]);
    const first = new Set(keys(1));
    expect(keys(2).filter((k) => first.has(k))).toEqual([]);
  });

  it('when generated, then every person matches the api.md §2.3 schema, formats included', () => {
    const violations = sample.flatMap((p) => recordViolations(p).map((v) => `${p.profile.id} ${v}`));
    expect(violations).toEqual([]);
  });

  it('when generated, then every field whose type the interface gives is filled, except the current end date', () => {
    const nulls = sample.flatMap((p) => nullTypedFields(p).map((path) => `${p.profile.id} ${path}`));
    expect(nulls).toEqual(sample.map((p) => `${p.profile.id} experience[0].end_date`));
  });

  it('when generated, then the record is already normalized (normalizing changes nothing)', () => {
    for (const person of people.slice(0, 200)) expect(normalizeRecord(person)).toEqual(person);
  });

  it('when generated, then every person has a profile id, emails and phones the identity index accepts', () => {
    for (const person of people.slice(0, 1000)) {
      expect(person.profile.id).toMatch(/^[0-9a-f]{24}$/);
      const kinds = identitiesOf(person, 'US').map((x) => x.kind);
      expect(kinds.filter((k) => k === 'email')).toHaveLength(2);
      expect(kinds.filter((k) => k === 'phone').length).toBe(person.traits.phone_numbers.length);
    }
  });

  it('when generated, then the work history runs back from the current, primary position without overlaps', () => {
    const problems = people.flatMap(({ profile, experience, company, job }) => {
      const wrong: string[] = [];
      if (experience.length < 1 || experience.length > 4) wrong.push(`${experience.length} positions`);
      if (experience.some((e, i) => e.is_primary !== (i === 0))) wrong.push('only the first position is primary');
      if (experience[0]?.company.name !== company.name || experience[0]?.title.name !== job.title) wrong.push('the current position is the company and job');
      for (let i = 1; i < experience.length; i++) {
        const [later, earlier] = [experience[i - 1]!, experience[i]!];
        if (!(earlier.end_date! <= later.start_date! && earlier.start_date! < earlier.end_date!)) wrong.push(`position ${i} overlaps`);
      }
      return wrong.map((w) => `${profile.id}: ${w}`);
    });
    expect(problems).toEqual([]);
  });

  it('when generated, then people are varied and their details record is fully filled', () => {
    expect(new Set(people.map((p) => p.traits.full_name)).size).toBeGreaterThan(2000);
    expect(new Set(people.map((p) => p.company.name)).size).toBeGreaterThan(500);
    expect(new Set(people.map((p) => p.location.city)).size).toBeGreaterThan(20);
    const details = toVisitorDetails(people[0]!);
    expect(Object.values(details).every((v) => typeof v === 'string' && v.length > 0)).toBe(true);
  });

  it('when two people work for the same company, then they carry the same organization data', () => {
    const [a, b] = people.filter((p) => p.company.name === people[0]!.company.name);
    expect(b).toBeDefined();
    expect(a!.organization).toEqual(b!.organization);
  });
});
