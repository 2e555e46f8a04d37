import { companyKeyOf, isFreeMailDomain } from './company-key.js';

describe('companyKeyOf', () => {
  it("counts an identified person for their email's company", () => {
    expect(companyKeyOf({ email: 'ada@acme.example', company: { name: 'Other', domain: 'other.example' } })).toBe('acme.example');
  });

  it("counts a person with a mail provider's address for the company of the network, if any", () => {
    expect(isFreeMailDomain('gmail.com')).toBe(true);
    expect(companyKeyOf({ email: 'ada@gmail.com', company: { name: 'Acme', domain: 'acme.example' } })).toBe('acme.example');
    expect(companyKeyOf({ email: 'ada@gmail.com', company: null })).toBeNull();
  });

  it('keys a company without a domain by its name, lower-cased', () => {
    expect(companyKeyOf({ email: null, company: { name: 'Acme Corp', domain: null } })).toBe('acme corp');
    expect(companyKeyOf({ email: null, company: null })).toBeNull();
  });
});
