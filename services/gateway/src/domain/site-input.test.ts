import { AppError } from '@glimpse/errors';
import { generateSiteKey, isSiteKey, normalizeOrigin, parseSiteCreate, parseSiteUpdate, siteSnippet } from './site-input';

describe('site input', () => {
  it('when origins are written in several spellings, then they are kept as browsers send them', () => {
    expect(normalizeOrigin('HTTPS://Shop.Example.COM')).toBe('https://shop.example.com');
    expect(normalizeOrigin('https://shop.example.com:443/')).toBe('https://shop.example.com');
    expect(normalizeOrigin('http://localhost:8080')).toBe('http://localhost:8080');
    expect(normalizeOrigin('http://a.com:80')).toBe('http://a.com');
    expect(normalizeOrigin('https://bücher.de')).toBe('https://xn--bcher-kva.de');
  });

  it('when an origin has a path, a query, credentials or another scheme, then it is refused', () => {
    for (const bad of ['https://a.com/shop', 'https://a.com/?q=1', 'https://a.com#x', 'https://u:p@a.com', 'ftp://a.com', 'a.com', 'null', '']) {
      expect(normalizeOrigin(bad)).toBeNull();
    }
  });

  it('when a site is created, then origins are normalised and deduplicated, and track names kept once', () => {
    expect(parseSiteCreate({ name: ' Shop ', origins: ['https://A.com', 'https://a.com/'], track_events: ['signup', 'signup'] })).toEqual({
      name: 'Shop',
      origins: ['https://a.com'],
      trackEvents: ['signup'],
      captureForms: false,
      consent: 'implied',
      honorGpc: true,
      queryKeys: [],
      identityVerification: 'off',
      newVisitorsPerDay: null,
    });
    expect(parseSiteCreate({ name: 'x', origins: ['http://b.io'] }).trackEvents).toEqual([]);
  });

  it.each([
    [{}, 'name is required'],
    [{ name: '', origins: ['https://a.com'] }, 'name must be 1 to 100 characters'],
    [{ name: 'a'.repeat(101), origins: ['https://a.com'] }, 'name must be 1 to 100 characters'],
    [{ name: 'x' }, 'origins is required'],
    [{ name: 'x', origins: [] }, 'origins must hold at least one origin'],
    [{ name: 'x', origins: Array.from({ length: 21 }, (_, i) => `https://a${i}.com`) }, 'at most 20 origins'],
    [{ name: 'x', origins: ['https://a.com/path'] }, 'is not an origin'],
    [{ name: 'x', origins: ['https://a.com'], track_events: ['bad name!'] }, 'each track event'],
    [{ name: 'x', origins: ['https://a.com'], key: 'glp_x' }, 'unknown field(s): key'],
    [[], 'body must be a JSON object'],
  ])('when the body is %j, then it is refused with a message naming the rule', (body, message) => {
    expect(() => parseSiteCreate(body)).toThrow(AppError);
    expect(() => parseSiteCreate(body)).toThrow(message);
  });

  it('when a site is changed, then only the given fields are returned', () => {
    expect(parseSiteUpdate({ origins: ['https://C.com'] })).toEqual({ origins: ['https://c.com'] });
    expect(parseSiteUpdate({})).toEqual({});
    expect(() => parseSiteUpdate({ origins: [] })).toThrow('at least one origin');
  });

  it('when a key is generated, then it is glp_ and 32 url-safe characters, different each time', () => {
    const a = generateSiteKey();
    expect(a).toMatch(/^glp_[A-Za-z0-9_-]{32}$/);
    expect(isSiteKey(a)).toBe(true);
    expect(generateSiteKey()).not.toBe(a);
    expect(isSiteKey('glk_abc')).toBe(false);
  });

  it("when a snippet is made, then it is the async per-site script (the settings travel in it, not in attributes), beside /g.js's SRI hash for the older snippet", () => {
    const s = siteSnippet('https://t.example.com/', 'glp_' + 'a'.repeat(32), 'sha384-abc');
    expect(s).toEqual({ html: `<script async src="https://t.example.com/s/glp_${'a'.repeat(32)}.js"></script>`, integrity: 'sha384-abc' });
  });

  it('when query keys are given, then they are kept once each; a malformed or an excess one is refused', () => {
    expect(parseSiteCreate({ name: 'x', origins: ['https://a.test'], query_keys: ['page', 'q', 'page'] }).queryKeys).toEqual(['page', 'q']);
    expect(parseSiteUpdate({ query_keys: [] })).toEqual({ queryKeys: [] });
    expect(() => parseSiteUpdate({ query_keys: ['a b'] })).toThrow('each query key must be 1 to 64 characters');
    expect(() => parseSiteUpdate({ query_keys: Array.from({ length: 21 }, (_, i) => `k${i}`) })).toThrow('at most 20 query keys');
  });

  it('when a new-visitor cap is given, then it is a whole number from 1 to 10,000,000, or null for the default', () => {
    expect(parseSiteCreate({ name: 'x', origins: ['https://a.test'] }).newVisitorsPerDay).toBeNull();
    expect(parseSiteCreate({ name: 'x', origins: ['https://a.test'], new_visitors_per_day: 500 }).newVisitorsPerDay).toBe(500);
    expect(parseSiteUpdate({ new_visitors_per_day: null })).toEqual({ newVisitorsPerDay: null });
    expect(() => parseSiteUpdate({ new_visitors_per_day: 0 })).toThrow('new_visitors_per_day must be a whole number');
    expect(() => parseSiteUpdate({ new_visitors_per_day: 1.5 })).toThrow('new_visitors_per_day must be a whole number');
  });

  it('when settings are given or left out, then create fills the defaults and update changes only what was given', () => {
    const created = parseSiteCreate({ name: 'x', origins: ['https://a.test'] });
    expect(created).toMatchObject({ captureForms: false, consent: 'implied', honorGpc: true });
    expect(parseSiteUpdate({ consent: 'required' })).toEqual({ consent: 'required' });
    expect(parseSiteUpdate({ capture_forms: true, honor_gpc: false })).toEqual({ captureForms: true, honorGpc: false });
    expect(() => parseSiteUpdate({ consent: 'maybe' })).toThrow('consent must be "implied" or "required"');
    expect(() => parseSiteCreate({ name: 'x', origins: ['https://a.test'], capture_forms: 'yes' })).toThrow('capture_forms must be true or false');
  });

  it('when identity_verification is given, then it is one of off, optional and required (default off)', () => {
    expect(parseSiteCreate({ name: 'x', origins: ['https://a.test'], identity_verification: 'required' }).identityVerification).toBe('required');
    expect(parseSiteUpdate({ identity_verification: 'optional' })).toEqual({ identityVerification: 'optional' });
    expect(() => parseSiteUpdate({ identity_verification: 'yes' })).toThrow('identity_verification must be "off", "optional" or "required"');
    expect(() => parseSiteCreate({ name: 'x', origins: ['https://a.test'], identity_secret: 'gis_x' })).toThrow('unknown field(s): identity_secret');
  });
});
