import { PersonChunk, personRow, type PersonRow } from './import-persons.js';
import { generatePerson } from '../demo/demo-persons.js';

const row = (id: string, identities: [string, string][], record = '{}'): PersonRow => ({
  id,
  record,
  details: '{}',
  identities: identities.map(([kind, value]) => ({ kind, value })),
  company: null,
});

describe('PersonChunk', () => {
  it('when a person appears twice, then the later line replaces the earlier one', () => {
    const chunk = new PersonChunk();
    chunk.add(row('a', [], '{"v":1}'));
    chunk.add(row('b', []));
    chunk.add(row('a', [], '{"v":2}'));
    expect(chunk.lines).toBe(3);
    expect(chunk.rows().map((r) => [r.id, r.record])).toEqual([
      ['b', '{}'],
      ['a', '{"v":2}'],
    ]);
  });

  it('when two persons name the same email, then the person of the later line owns it, even when an earlier person is repeated after', () => {
    const chunk = new PersonChunk();
    chunk.add(row('a', [['email', 'e@x.example']]));
    chunk.add(
      row('b', [
        ['email', 'e@x.example'],
        ['phone', '+14155550134'],
      ]),
    );
    expect(chunk.identities()).toEqual([
      { kind: 'email', value: 'e@x.example', personId: 'b' },
      { kind: 'phone', value: '+14155550134', personId: 'b' },
    ]);
    chunk.add(row('a', [['email', 'e@x.example']]));
    expect(chunk.identities()).toEqual(expect.arrayContaining([{ kind: 'email', value: 'e@x.example', personId: 'a' }]));
    expect(chunk.identities()).toHaveLength(2);
  });
});

describe('PersonChunk companies', () => {
  it('when several persons name one company, then the chunk holds it once, what later lines know winning', () => {
    const company = { domain: 'acme.example', name: 'Acme', industry: null, size: '11-50', employees: null, founded: null, location: null, profileUrl: null };
    const chunk = new PersonChunk();
    chunk.add({ ...row('a', []), company });
    chunk.add({ ...row('b', []), company: { ...company, name: 'Acme Inc', size: null } });
    chunk.add(row('c', []));
    expect(chunk.companies()).toEqual([{ ...company, name: 'Acme Inc' }]);
  });
});

describe('personRow', () => {
  it('when a line is already in the served form, then its text is stored as written; otherwise the normalized record is', () => {
    const person = generatePerson(0, 5);
    const line = JSON.stringify(person);
    const served = personRow(`  ${line}  `, 'US');
    expect(served).toMatchObject({ ok: true, row: { id: person.profile.id, record: line } });
    expect(served.ok && served.row.company).toMatchObject({ domain: person.organization.primary_domain, name: person.company.name });
    const upper = personRow(JSON.stringify({ ...person, profile: { ...person.profile, id: person.profile.id!.toUpperCase() } }), 'US');
    expect(upper.ok && JSON.parse(upper.row.record)).toEqual(person);
    expect(upper.ok && upper.row.record).not.toBe(line.replace(person.profile.id!, person.profile.id!.toUpperCase()));
  });

  it('when a line is not JSON or not a record, then it says why', () => {
    expect(personRow('{', 'US')).toEqual({ ok: false, message: 'not valid JSON' });
    expect(personRow('{"profile":{}}', 'US')).toMatchObject({ ok: false, message: expect.stringContaining('profile.id') });
  });
});
