import { companyLine } from './import-companies.js';

const line = { domain: 'WWW.Acme.example', name: 'Acme', industry: 'Software', size: '51-200', employees: 120, founded: 2009 };

describe('companyLine', () => {
  it('when a line is a company, then it is the row to store: domain normalized, location and profile URL kept', () => {
    const result = companyLine({ ...line, location: { country: 'US', region: 'CA', city: 'Oakland' }, profile_url: 'pronet.example/company/acme', extra: 1 });
    expect(result).toEqual({
      ok: true,
      row: {
        domain: 'acme.example',
        name: 'Acme',
        industry: 'Software',
        size: '51-200',
        employees: 120,
        founded: 2009,
        location: { country: 'US', region: 'CA', city: 'Oakland' },
        profileUrl: 'https://pronet.example/company/acme',
      },
    });
  });

  it('when only the domain is given, then every other field is null', () => {
    expect(companyLine({ domain: 'acme.example' })).toEqual({
      ok: true,
      row: { domain: 'acme.example', name: null, industry: null, size: null, employees: null, founded: null, location: null, profileUrl: null },
    });
  });

  it.each([
    [[1], 'a line must be a JSON object'],
    [{ name: 'Acme' }, 'domain is required'],
    [{ domain: 42 }, 'domain must be a string'],
    [{ domain: 'localhost' }, 'domain must be a domain name'],
    [{ ...line, name: 'Ac\u0000me' }, 'contains a NUL character'],
    [{ ...line, employees: 'many' }, 'employees must be a whole number'],
    [{ ...line, employees: -1 }, 'employees'],
    [{ ...line, founded: 20150 }, 'founded must be a year'],
    [{ ...line, location: 'Oakland' }, 'location must be an object'],
    [{ ...line, location: { city: 7 } }, 'location.city'],
    [{ ...line, profile_url: 'not a url' }, 'profile_url must be an absolute http(s) URL'],
  ])('when a line is %j, then it is skipped with a message naming what is wrong', (value, message) => {
    const result = companyLine(value);
    expect(result.ok).toBe(false);
    expect(!result.ok && result.message).toContain(message);
  });
});
