import { billingPeriodOf, createPersonKey } from './billed-person.js';

const SECRET = 'a-billing-key-of-at-least-thirty-two-characters';
const ACCOUNT = '0f1e2d3c-4b5a-4968-8776-655443322110';
const OTHER = '1f1e2d3c-4b5a-4968-8776-655443322110';

describe('billingPeriodOf', () => {
  it.each([
    ['2026-11-28', '2026-11-01'],
    ['2026-12-01', '2026-12-01'],
    ['2024-02-29', '2024-02-01'],
    ['2026-12-31', '2026-12-01'],
  ])('when the day is %s, then the period starts on %s', (day, period) => {
    expect(billingPeriodOf(day)).toBe(period);
  });
});

describe('createPersonKey', () => {
  const key = createPersonKey(SECRET);

  it('when the same account discloses the same email twice, then the key is the same, 64 hex digits, without the email', () => {
    const first = key(ACCOUNT, 'ada@example.com');
    expect(first).toMatch(/^[0-9a-f]{64}$/);
    expect(key(ACCOUNT, 'ada@example.com')).toBe(first);
    expect(first).not.toContain('ada');
  });

  it("when the account, the email or the secret differ, then the key differs (no account can match another one's keys)", () => {
    const first = key(ACCOUNT, 'ada@example.com');
    expect(key(OTHER, 'ada@example.com')).not.toBe(first);
    expect(key(ACCOUNT, 'bob@example.com')).not.toBe(first);
    expect(createPersonKey(`${SECRET}!`)(ACCOUNT, 'ada@example.com')).not.toBe(first);
  });

  it('when the secret is shorter than 32 characters, then it is refused', () => {
    expect(() => createPersonKey('short')).toThrow(/32 characters/);
  });
});
