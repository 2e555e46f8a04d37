import { LINK_TOKEN_TTL_DAYS } from '@glimpse/api';
import { ALL_TOKENS, emailTokenId, isRevoked, revocationIdsOf, revokeAll, revokeEmail, revokeOne } from './link-token-revocation';

const now = new Date('2026-11-29T12:00:00Z');
const day = 86_400_000;
const token = { id: 'abcdefghijklmnopqrstuv', issuedAt: now.getTime() - day };
const key = 'f'.repeat(64);

describe('link token revocations', () => {
  it('when one token is revoked, then that token is dead whenever it was issued, and another is not', () => {
    const row = revokeOne(token.id, now);
    expect(row).toEqual({ tokenId: token.id, revokedBefore: null, expiresAt: new Date(now.getTime() + LINK_TOKEN_TTL_DAYS.max * day) });
    expect(isRevoked(token, key, [row])).toBe(true);
    expect(isRevoked({ ...token, id: 'another-token-id-00000' }, key, [row])).toBe(false);
  });

  it("when all the account's tokens are revoked, then those issued up to then are dead and those issued after live", () => {
    const row = revokeAll(now);
    expect(row).toMatchObject({ tokenId: ALL_TOKENS, revokedBefore: now, expiresAt: new Date(now.getTime() + 365 * day) });
    expect(isRevoked(token, key, [row])).toBe(true);
    expect(isRevoked({ ...token, issuedAt: now.getTime() }, key, [row])).toBe(true);
    expect(isRevoked({ ...token, issuedAt: now.getTime() + 1 }, key, [row])).toBe(false);
    // A token from before ids: issued at 0, so any "all" revocation stops it.
    expect(isRevoked({ id: null, issuedAt: 0 }, key, [row])).toBe(true);
  });

  it("when an email is erased, then every token of that email issued up to then is dead, and another email's is not", () => {
    const row = revokeEmail(key, now);
    expect(row).toMatchObject({ tokenId: emailTokenId(key), revokedBefore: now });
    expect(isRevoked(token, key, [row])).toBe(true);
    expect(isRevoked({ id: null, issuedAt: 0 }, key, [row])).toBe(true);
    expect(isRevoked(token, 'e'.repeat(64), [row])).toBe(false);
  });

  it("when a token is checked, then the rows read are the account's \"*\", its email's and its id's", () => {
    expect(revocationIdsOf(token, key)).toEqual([ALL_TOKENS, `email:${key}`, token.id]);
    expect(revocationIdsOf({ id: null }, key)).toEqual([ALL_TOKENS, `email:${key}`]);
    expect(isRevoked(token, key, [])).toBe(false);
  });
});
