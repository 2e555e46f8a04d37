import { normalizeDomain } from './domains';

describe('normalizeDomain', () => {
  it('when a domain is written in any case, with www., a trailing dot or spaces, then one spelling comes back', () => {
    for (const text of ['acme.com', 'ACME.com', ' www.Acme.COM ', 'acme.com.', 'WWW.acme.com']) expect(normalizeDomain(text)).toBe('acme.com');
    expect(normalizeDomain('eu.shop.acme.co.uk')).toBe('eu.shop.acme.co.uk');
  });

  it('when a URL is given, then its host is the domain', () => {
    expect(normalizeDomain('https://www.acme.com/about?x=1')).toBe('acme.com');
    expect(normalizeDomain('http://Acme.com:8080')).toBe('acme.com');
    expect(normalizeDomain('acme.com/pricing')).toBe('acme.com');
  });

  it('when the name is international, then it is punycode', () => {
    expect(normalizeDomain('Bücher.example')).toBe('xn--bcher-kva.example');
  });

  it('when it is no DNS name of two labels or more, then null', () => {
    for (const bad of [
      '',
      'localhost',
      'www.',
      '10.0.0.1',
      '[::1]',
      'acme..com',
      '-acme.com',
      'ac me.com',
      'acme\0.com',
      'ftp://acme.com',
      'mailto:a@acme.com',
      42,
      null,
    ]) {
      expect(normalizeDomain(bad)).toBeNull();
    }
    expect(normalizeDomain(`${'a'.repeat(64)}.com`)).toBeNull();
    expect(normalizeDomain(`${'a.'.repeat(130)}com`)).toBeNull();
  });
});
