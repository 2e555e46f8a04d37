import { missingField, parseLookup } from './lookups.js';

describe('parseLookup', () => {
  it('when every way of matching is given, then the keys come in the order email, email_sha256, phone, pronet_url, normalized', () => {
    const { keys, required } = parseLookup(
      {
        pronet_url: 'https://www.pronet.example/in/Ada/',
        phone: '(415) 555-0134',
        email_sha256: 'AB'.repeat(32),
        email: ' Ada@Example.com ',
        required: ['job.title', 'job.title'],
      },
      'US',
    );
    expect(keys).toEqual([
      { kind: 'email', value: 'ada@example.com' },
      { kind: 'email_sha256', value: 'ab'.repeat(32) },
      { kind: 'phone', value: '+14155550134' },
      { kind: 'pronet_url', value: 'pronet.example/in/ada' },
    ]);
    expect(required).toEqual(['job.title']);
  });

  it('when required names a path the record does not have, or nothing to match by is given, then it is invalid_request', () => {
    expect(() => parseLookup({ email: 'a@example.com', required: ['job.salary'] }, 'US')).toThrow(/unknown field path/);
    expect(() => parseLookup({ required: ['job.title'] }, 'US')).toThrow(/send an email, a phone/);
  });
});

describe('missingField', () => {
  const record = JSON.stringify({ job: { title: 'CTO', role: null }, company: { name: '' }, skills: [], interests: ['x'] });

  it('when a required path is null, empty, an empty list or absent, then it is the one named', () => {
    expect(missingField(record, ['job.title', 'job.role'])).toBe('job.role');
    expect(missingField(record, ['company.name'])).toBe('company.name');
    expect(missingField(record, ['skills'])).toBe('skills');
    expect(missingField(record, ['location.city'])).toBe('location.city');
  });

  it('when every required path has a value, then nothing is missing', () => {
    expect(missingField(record, ['job.title', 'interests'])).toBeNull();
    expect(missingField(record, [])).toBeNull();
  });
});
