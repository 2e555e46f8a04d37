import { createHash, createHmac, hkdfSync } from 'node:crypto';
import { ERASED_EMAIL_PATTERN, createErasedEmail } from './schemas';

const SECRET = 'a-test-erasure-secret-of-at-least-32-characters';
const account = '5b0c7a52-3f5e-4a8e-9d64-0f2b8a1c9e11';
const other = '0d9f3c2e-7a1b-4c5d-8e6f-a1b2c3d4e5f6';

describe('createErasedEmail', () => {
  const erased = createErasedEmail(SECRET);

  it('when the same person of the same account is erased twice, then the stand-in is the same, and it cannot be an email', () => {
    expect(erased(account, 'ada@example.com')).toBe(erased(account, 'ada@example.com'));
    expect(erased(account.toUpperCase(), 'ada@example.com')).toBe(erased(account, 'ada@example.com'));
    expect(erased(account, 'ada@example.com')).toMatch(ERASED_EMAIL_PATTERN);
    expect(erased(account, 'ada@example.com')).not.toContain('@');
  });

  it('when the stand-in is computed, then it is HMAC-SHA256 of the email under HKDF(secret, account id): not the unkeyed hash', () => {
    const key = Buffer.from(hkdfSync('sha256', Buffer.from(SECRET), Buffer.alloc(0), `glimpse erasure v1 ${account}`, 32));
    expect(erased(account, 'ada@example.com')).toBe(`erased:${createHmac('sha256', key).update('ada@example.com').digest('hex')}`);
    const unkeyed = createHash('sha256').update(`${account}:ada@example.com`).digest('hex');
    expect(erased(account, 'ada@example.com')).not.toContain(unkeyed);
  });

  it('when the account, the email or the secret differ, then so does the stand-in', () => {
    const values = new Set([
      erased(account, 'ada@example.com'),
      erased(other, 'ada@example.com'),
      erased(account, 'bob@example.com'),
      createErasedEmail(`${SECRET}!`)(account, 'ada@example.com'),
    ]);
    expect(values.size).toBe(4);
  });

  it('when the secret is short, then it is refused', () => {
    expect(() => createErasedEmail('short')).toThrow(/32 characters/);
  });
});
