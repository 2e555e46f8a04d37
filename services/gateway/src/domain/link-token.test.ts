import { createLinkTokens, LINK_TOKEN_ID_PATTERN } from './link-token';

const tokens = createLinkTokens('a-test-secret-of-at-least-32-characters!');
const account = '0b6f4c36-1c1e-4f4a-9d4e-3f1a2b3c4d5e';
const other = '9a8b7c6d-1c1e-4f4a-9d4e-3f1a2b3c4d5e';
const email = 'ada.lovelace@example.com';
const now = new Date('2026-11-29T12:00:00Z');

describe('link tokens', () => {
  it('when a token is issued and verified for its account within its time, then it gives the email back', () => {
    const { token, id, expiresAt } = tokens.issue(account, email, 30, now);
    expect(expiresAt).toEqual(new Date('2026-12-29T12:00:00Z'));
    expect(token).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(id).toMatch(LINK_TOKEN_ID_PATTERN);
    expect(tokens.verify(token, account, now)).toEqual({ ok: true, email, id, issuedAt: now.getTime() });
    expect(tokens.issue(account, email, 30, now).id).not.toBe(id);
  });

  it('when a token is read as bytes or text, then the email is not in it, and two tokens for one email differ', () => {
    const { token } = tokens.issue(account, email, 30, now);
    const bytes = Buffer.from(token, 'base64url');
    expect(bytes.includes(Buffer.from(email))).toBe(false);
    expect(bytes.includes(Buffer.from('ada.lovelace'))).toBe(false);
    expect(token).not.toContain('ada');
    expect(tokens.issue(account, email, 30, now).token).not.toBe(token);
  });

  it('when any byte or character of a token is changed, then it is invalid', () => {
    const { token } = tokens.issue(account, email, 30, now);
    const bytes = Buffer.from(token, 'base64url');
    for (let i = 0; i < bytes.length; i += 1) {
      const changed = Buffer.from(bytes);
      changed[i] = changed[i]! ^ 0x01;
      expect(tokens.verify(changed.toString('base64url'), account, now)).toEqual({ ok: false, reason: 'link_invalid' });
    }
    expect(tokens.verify(token.slice(0, -2), account, now)).toEqual({ ok: false, reason: 'link_invalid' });
    expect(tokens.verify(`${token}!`, account, now)).toEqual({ ok: false, reason: 'link_invalid' });
    expect(tokens.verify('', account, now)).toEqual({ ok: false, reason: 'link_invalid' });
  });

  it('when a token is verified for another account, then it is refused', () => {
    const { token } = tokens.issue(account, email, 30, now);
    expect(tokens.verify(token, other, now)).toEqual({ ok: false, reason: 'link_foreign_account' });
  });

  it('when a token is past its expiry, then it is expired', () => {
    const { token, id, expiresAt } = tokens.issue(account, email, 1, now);
    expect(tokens.verify(token, account, new Date(expiresAt.getTime() - 1000))).toEqual({ ok: true, email, id, issuedAt: now.getTime() });
    expect(tokens.verify(token, account, expiresAt)).toEqual({ ok: false, reason: 'link_expired' });
  });

  it('when the secret changes, then earlier tokens are invalid', () => {
    const { token } = tokens.issue(account, email, 30, now);
    expect(createLinkTokens('another-secret-of-at-least-32-characters').verify(token, account, now)).toEqual({ ok: false, reason: 'link_invalid' });
  });

  it('when an email is keyed for a revocation, then the key is stable, differs per email and per secret, and is not the email', () => {
    const key = tokens.emailKey(email);
    expect(key).toMatch(/^[a-f0-9]{64}$/);
    expect(tokens.emailKey(email)).toBe(key);
    expect(tokens.emailKey('other@example.com')).not.toBe(key);
    expect(createLinkTokens('another-secret-of-at-least-32-characters').emailKey(email)).not.toBe(key);
  });
});
