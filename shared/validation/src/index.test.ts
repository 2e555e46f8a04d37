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

  it('normalizeEmail gives what emailSchema gives, for addresses of every shape', () => {
    const inputs: unknown[] = [
      'ada@example.com',
      ' Ada@Example.COM\n',
      '\u00a0ada@example.com\u2028',
      'ADA.LOVELACE+tag@sub.example.co.uk',
      "o'brien@example.ie",
      '.ada@example.com',
      'ada.@example.com',
      'a..da@example.com',
      'ada@example',
      'ada@-example.com',
      'ada@example.c',
      'ada@exa_mple.com',
      'ädä@example.com',
      'ada@exämple.com',
      'ada@@example.com',
      'ada example@example.com',
      '',
      '   ',
      '@example.com',
      'ada@.com',
      `${'a'.repeat(242)}@example.com`,
      `${'a'.repeat(243)}@example.com`,
      ` ${'a'.repeat(242)}@example.com `,
      'İSTANBUL@example.com',
      'KELVIN\u212a@example.com',
      42,
      null,
      undefined,
      {},
      ['ada@example.com'],
    ];
    const schema = emailSchema();
    for (const input of inputs) {
      const parsed = schema.safeParse(input);
      expect({ input, email: normalizeEmail(input) }).toEqual({ input, email: parsed.success ? parsed.data : null });
    }
  });
});
