import { parseIpRangeLine } from './ip-range-line.js';
import { checkAsn, checkName } from './ip-range-row.js';

describe('an NDJSON company line → a range', () => {
  it('reads the CIDR as first and last address, and types the company business unless it says otherwise', () => {
    expect(parseIpRangeLine(JSON.stringify({ cidr: '203.0.113.0/24', company: { name: ' Acme ', domain: 'Acme.example' } }))).toEqual({
      family: 4,
      first: '203.0.113.0',
      last: '203.0.113.255',
      asn: null,
      name: 'Acme',
      domain: 'acme.example',
      type: 'business',
    });
    expect(parseIpRangeLine(JSON.stringify({ cidr: '2001:db8:1::/48', company: { name: 'Uni' }, type: 'education', asn: 'AS64500' }))).toMatchObject({
      family: 6,
      asn: 64500,
      type: 'education',
    });
  });

  it('reports what is wrong with a bad line', () => {
    expect(parseIpRangeLine('not json')).toEqual({ error: 'not JSON' });
    expect(parseIpRangeLine('[1]')).toEqual({ error: 'not a JSON object' });
    expect(parseIpRangeLine('{"company":{"name":"X"}}')).toHaveProperty('error', 'cidr: missing (a string such as "203.0.113.0/24")');
    expect(parseIpRangeLine('{"cidr":"10.0.0.0/33","company":{"name":"X"}}')).toEqual({ error: 'cidr: prefix longer than 32 bits' });
    expect(parseIpRangeLine('{"cidr":"10.0.0.0/8"}')).toEqual({ error: 'company: missing (an object with name and domain)' });
    expect(parseIpRangeLine('{"cidr":"10.0.0.0/8","company":{"domain":"x.example"}}')).toEqual({ error: 'company.name: missing (1-200 characters)' });
    expect(parseIpRangeLine('{"cidr":"10.0.0.0/8","company":{"name":"X","domain":"no"}}')).toEqual({ error: 'company.domain: not a domain name' });
    expect(parseIpRangeLine('{"cidr":"10.0.0.0/8","company":{"name":"X"},"type":"company"}')).toHaveProperty('error');
    expect(parseIpRangeLine('{"cidr":"10.0.0.0/8","company":{"name":"X\\u0000"}}')).toEqual({ error: 'company.name: contains a NUL byte' });
  });
});

describe('row fields', () => {
  it('reads an asn as a number, with or without "AS", within 32 bits', () => {
    expect(checkAsn('AS15169')).toBe(15169);
    expect(checkAsn('as15169')).toBe(15169);
    expect(checkAsn(' 15169 ')).toBe(15169);
    expect(checkAsn(15169)).toBe(15169);
    expect(checkAsn('')).toBeNull();
    for (const bad of ['AS', '15169x', '4294967296', -1, 1.5, 'AS-1']) expect(checkAsn(bad)).toHaveProperty('error');
  });

  it('keeps a blank name as none and refuses one too long', () => {
    expect(checkName('   ')).toBeNull();
    expect(checkName('x'.repeat(201))).toHaveProperty('error');
  });
});
