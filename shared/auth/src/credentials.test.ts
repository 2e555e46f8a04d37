import { credentialKind, generateCredential, hashCredential, parseBearer } from './credentials';

describe('credentials', () => {
  it('when a credential is generated, then its kind is recognised from its prefix and only the hash identifies it', () => {
    const key = generateCredential('api_key');
    const token = generateCredential('event_token');
    expect(credentialKind(key.plain)).toBe('api_key');
    expect(credentialKind(token.plain)).toBe('event_token');
    expect(key.hash).toBe(hashCredential(key.plain));
    expect(key.hash).not.toContain(key.plain.slice(4));
    expect(key.prefix).toBe(key.plain.slice(0, 12));
    expect(generateCredential('api_key').plain).not.toBe(key.plain);
  });

  it('when a value is not a well-formed credential, then it has no kind', () => {
    expect(credentialKind('glk_short')).toBeNull();
    expect(credentialKind('xyz_' + 'a'.repeat(43))).toBeNull();
    expect(credentialKind('')).toBeNull();
  });

  it.each([
    ['Bearer abc', 'abc'],
    ['bearer abc', 'abc'],
    ['Bearer   abc  ', 'abc'],
    ['Basic abc', null],
    ['Bearer', null],
    ['Bearer a b', null],
    [undefined, null],
  ])('when the header is %p, then the bearer credential is %p', (header, expected) => {
    expect(parseBearer(header)).toBe(expected);
  });
});
