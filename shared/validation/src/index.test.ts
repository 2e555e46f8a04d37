import { emailSchema, isUuid, normalizeEmail } from './index';

describe('isUuid', () => {
  it('takes the ids we issue in either case and nothing else', () => {
    expect(isUuid('a84968e4-6934-4a22-8572-9a3eeee3e27a')).toBe(true);
    expect(isUuid('A84968E4-6934-4A22-8572-9A3EEEE3E27A')).toBe(true);
    expect(isUuid('a84968e4-6934-4a22-8572-9a3eeee3e27')).toBe(false);
    expect(isUuid('a84968e4-6934-4a22-8572-9a3eeee3e27a ')).toBe(false);
    expect(isUuid('%E2%82')).toBe(false);
    expect(isUuid(42)).toBe(false);
  });
});

describe('emailSchema', () => {
  it('trims and lower-cases a valid address', () => {
    expect(emailSchema().parse('  Ada@Example.COM ')).toBe('ada@example.com');
  });

  it('refuses what is not an address, or too long, with the message given', () => {
    expect(emailSchema({ invalid: 'bad' }).safeParse('not-an-email').error?.issues[0]?.message).toBe('bad');
    expect(emailSchema({ tooLong: 'long' }).safeParse(`${'a'.repeat(250)}@x.io`).error?.issues[0]?.message).toBe('long');
  });

  it('normalizeEmail answers null for anything that is not an address', () => {
    expect(normalizeEmail(' Ada@Example.com')).toBe('ada@example.com');
    expect(normalizeEmail('ada@')).toBeNull();
    expect(normalizeEmail(undefined)).toBeNull();
  });
});
