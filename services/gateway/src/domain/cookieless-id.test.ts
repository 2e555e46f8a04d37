import { addressSubject, cookielessId, saltDay } from './cookieless-id';

describe('cookieless ids', () => {
  const salt = Buffer.alloc(32, 7);
  it('when the site, address, user agent and salt are the same, then the id is the same 24 hex; any of them changed, another', () => {
    const id = cookielessId(salt, 'site', '203.0.113.9', 'UA 1');
    expect(id).toMatch(/^[0-9a-f]{24}$/);
    expect(cookielessId(salt, 'site', '203.0.113.9', 'UA 1')).toBe(id);
    expect(cookielessId(salt, 'site', '203.0.113.9', 'UA 2')).not.toBe(id);
    expect(cookielessId(salt, 'site', '203.0.113.10', 'UA 1')).not.toBe(id);
    expect(cookielessId(salt, 'other', '203.0.113.9', 'UA 1')).not.toBe(id);
    expect(cookielessId(Buffer.alloc(32, 8), 'site', '203.0.113.9', 'UA 1')).not.toBe(id);
  });

  it('when a time is given, then its salt day is the UTC date', () => {
    expect(saltDay(new Date('2026-11-29T23:59:59.999Z'))).toBe('2026-11-29');
    expect(saltDay(new Date('2026-11-30T00:00:00Z'))).toBe('2026-11-30');
  });
});

describe('addressSubject', () => {
  it.each([
    ['203.0.113.9', '203.0.113.9'],
    ['::ffff:203.0.113.9', '203.0.113.9'],
    ['2001:db8:1:2:3:4:5:6', '2001:db8:1:2::/64'],
    ['2001:db8:1:2::ff', '2001:db8:1:2::/64'],
    ['2001:0DB8:0001:0002:aaaa::1', '2001:db8:1:2::/64'],
    ['2001:db8::1', '2001:db8:0:0::/64'],
    ['::1', '0:0:0:0::/64'],
    [undefined, 'unknown'],
  ])('when the address is %s, then it is counted as %s', (ip, subject) => {
    expect(addressSubject(ip)).toBe(subject);
  });
});
