import { createHmac } from 'node:crypto';
import { IDENTITY_SECRET_PATTERN } from '@glimpse/api';
import { PREVIOUS_SECRET_OVERLAP_MS, generateIdentitySecret, identityHash, verifyIdentityHash, type IdentitySecrets } from './identity-hash';

const NOW = Date.parse('2026-12-02T10:00:00Z');
const current = generateIdentitySecret();
const previous = generateIdentitySecret();
const secrets = (over: Partial<IdentitySecrets> = {}): IdentitySecrets => ({
  identitySecret: current,
  previousIdentitySecret: previous,
  previousIdentitySecretExpiresAt: new Date(NOW + PREVIOUS_SECRET_OVERLAP_MS),
  ...over,
});

describe('identity secrets', () => {
  it('when a secret is generated, then it is gis_ and 32 random bytes in base64url, a new one each time', () => {
    expect(current).toMatch(IDENTITY_SECRET_PATTERN);
    expect(Buffer.from(current.slice(4), 'base64url')).toHaveLength(32);
    expect(generateIdentitySecret()).not.toBe(current);
  });

  it("when the site's server computes the hash, then it is the lower-case hex HMAC-SHA256 of the email trimmed and lower-cased", () => {
    const expected = createHmac('sha256', current).update('ada@example.com').digest('hex');
    expect(identityHash(current, '  Ada@Example.COM ')).toBe(expected);
    expect(expected).toMatch(/^[0-9a-f]{64}$/);
  });
});

describe('verifying an identify hash', () => {
  const email = 'ada@example.com';

  it('when the hash is the HMAC of the email under the current secret, then it verifies', () => {
    expect(verifyIdentityHash(secrets(), email, identityHash(current, email), NOW)).toBe(true);
  });

  it('when the hash is of another email, or missing, then it does not verify', () => {
    expect(verifyIdentityHash(secrets(), email, identityHash(current, 'eve@example.com'), NOW)).toBe(false);
    expect(verifyIdentityHash(secrets(), email, undefined, NOW)).toBe(false);
  });

  it("when the hash is made with another site's secret, then it does not verify", () => {
    expect(verifyIdentityHash(secrets(), email, identityHash(generateIdentitySecret(), email), NOW)).toBe(false);
  });

  it('when the hash is made with the previous secret, then it verifies before the previous one expires and not after', () => {
    const hash = identityHash(previous, email);
    expect(verifyIdentityHash(secrets(), email, hash, NOW)).toBe(true);
    expect(verifyIdentityHash(secrets(), email, hash, NOW + PREVIOUS_SECRET_OVERLAP_MS - 1)).toBe(true);
    expect(verifyIdentityHash(secrets(), email, hash, NOW + PREVIOUS_SECRET_OVERLAP_MS)).toBe(false);
    expect(verifyIdentityHash(secrets({ previousIdentitySecretExpiresAt: null }), email, hash, NOW)).toBe(false);
  });

  it('when the hash is not 64 lower-case hex, then it does not verify (and nothing throws)', () => {
    const good = identityHash(current, email);
    for (const bad of [good.toUpperCase(), good.slice(0, 63), `${good}0`, `${good.slice(0, 63)}g`, '', 'zz', good.slice(0, 32)]) {
      expect(verifyIdentityHash(secrets(), email, bad, NOW)).toBe(false);
    }
  });

  it('when the site has no secret (a site from before identity secrets, never rotated), then nothing verifies', () => {
    expect(
      verifyIdentityHash(
        secrets({ identitySecret: null, previousIdentitySecret: null, previousIdentitySecretExpiresAt: null }),
        email,
        identityHash(current, email),
        NOW,
      ),
    ).toBe(false);
  });
});
