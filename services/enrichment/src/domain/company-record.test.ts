import { normalizeRecord } from './enriched-record.js';
import { cleanYear, companyOfPerson, mergeCompany, toCompanyRecord, type CompanyRow } from './company-record.js';
import { generatePerson } from '../demo/demo-persons.js';

const row = (over: Partial<CompanyRow> = {}): CompanyRow => ({
  domain: 'acme.example',
  name: null,
  industry: null,
  size: null,
  employees: null,
  founded: null,
  location: null,
  profileUrl: null,
  ...over,
});

describe('companyOfPerson', () => {
  it("when a person's record names a company with a website, then the company is keyed by its domain and carries the firmographics", () => {
    const person = generatePerson(3, 7);
    const company = companyOfPerson(person);
    expect(company).toEqual({
      domain: person.company.website!.replace('https://www.', ''),
      name: person.company.name,
      industry: person.company.industry,
      size: person.company.size,
      employees: person.organization.estimated_num_employees,
      founded: person.company.founded,
      location: { country: person.company.location.country, region: person.company.location.state, city: person.company.location.city },
      profileUrl: person.company.pronet.url,
    });
  });

  it('when the company has no website, then the organization primary domain keys it; with neither, there is no company', () => {
    const withDomain = normalizeRecord({ company: { name: 'Acme' }, organization: { primary_domain: 'WWW.Acme.example' } });
    expect(companyOfPerson(withDomain)).toMatchObject({ domain: 'acme.example', name: 'Acme', location: null });
    expect(companyOfPerson(normalizeRecord({ company: { name: 'Acme', website: 'not a site' } }))).toBeNull();
  });

  it('when values cannot be stored (a NUL, a year that is none, employees past a Postgres integer, a bad URL), then only those fields are null', () => {
    const record = normalizeRecord({
      company: { name: 'Ac\u0000me', website: 'acme.example', founded: 20150, pronet: { url: 'not a url' }, industry: '  ' },
      organization: { estimated_num_employees: 2 ** 40 },
    });
    expect(companyOfPerson(record)).toEqual(row());
  });
});

describe('mergeCompany', () => {
  it('when a domain is seen twice in a chunk, then what the later sighting knows wins and the earlier fills its gaps', () => {
    const earlier = row({ name: 'Acme', size: '11-50', location: { country: 'US', region: null, city: null } });
    const later = row({ name: 'Acme Inc', employees: 40 });
    expect(mergeCompany(earlier, later)).toEqual(row({ name: 'Acme Inc', size: '11-50', employees: 40, location: earlier.location }));
  });
});

describe('toCompanyRecord', () => {
  it('when a stored company lacks a location, then the served record still has every field, null when unknown', () => {
    expect(toCompanyRecord(row({ profileUrl: 'https://pronet.example/company/acme' }))).toEqual({
      domain: 'acme.example',
      name: null,
      industry: null,
      size: null,
      employees: null,
      founded: null,
      location: { country: null, region: null, city: null },
      pronet_url: 'https://pronet.example/company/acme',
    });
  });
});

describe('cleanYear', () => {
  it('takes a year from 1000 to next year and nothing else', () => {
    expect(cleanYear(1998)).toBe(1998);
    expect([0, 999, new Date().getUTCFullYear() + 2, 2015.5, '2015'].map(cleanYear)).toEqual([null, null, null, null, null]);
  });
});
