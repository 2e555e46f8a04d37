import { eventInputSchema } from '@glimpse/api';
import { parseEventInput, plainEventInput } from './event-input';

const valid = { event: 'demo_booked', email: 'ann@example.com' };

function messageOf(body: unknown): string {
  try {
    parseEventInput(body);
  } catch (err) {
    expect((err as { code: string }).code).toBe('invalid_request');
    return (err as Error).message;
  }
  throw new Error('expected the body to be refused');
}

describe('event input', () => {
  it('when the body is valid, then the email is trimmed and lower-cased and properties kept', () => {
    expect(parseEventInput({ event: 'form.submitted:v2-x', email: '  Ann@Example.COM ', properties: { plan: 'pro', seats: 3, trial: false } })).toEqual({
      event: 'form.submitted:v2-x',
      email: 'ann@example.com',
      properties: { plan: 'pro', seats: 3, trial: false },
    });
  });

  it('when the event name is 64 characters, then it is accepted; at 65 it is refused', () => {
    expect(parseEventInput({ ...valid, event: 'a'.repeat(64) }).event).toHaveLength(64);
    expect(messageOf({ ...valid, event: 'a'.repeat(65) })).toMatch(/1 to 64 characters/);
  });

  it.each([
    [{ email: 'ann@example.com' }, /event is required/],
    [{ ...valid, event: '' }, /1 to 64 characters/],
    [{ ...valid, event: 'demo booked' }, /letters, digits/],
    [{ ...valid, event: 'démo' }, /letters, digits/],
    [{ ...valid, event: 'a/b' }, /letters, digits/],
    [{ ...valid, event: 42 }, /event must be a string/],
    [{ event: 'demo_booked' }, /email is required/],
    [{ ...valid, email: '' }, /valid email/],
    [{ ...valid, email: 'not-an-email' }, /valid email/],
    [{ ...valid, email: 7 }, /email must be a string/],
    [{ ...valid, email: `${'a'.repeat(250)}@x.io` }, /at most 254/],
    [{ ...valid, properties: { nested: { a: 1 } } }, /one level deep/],
    [{ ...valid, properties: { list: [1, 2] } }, /one level deep/],
    [{ ...valid, properties: { missing: null } }, /one level deep/],
    [{ ...valid, properties: 'plan=pro' }, /properties must be an object/],
    [{ ...valid, properties: [1] }, /properties must be an object/],
    [{ ...valid, properties: { '': 1 } }, /property names must be 1 to 128/],
    [{ ...valid, timestamp: 1 }, /unknown field\(s\): timestamp/],
    [[valid], /JSON object/],
    ['demo_booked', /JSON object/],
    [null, /JSON object/],
  ])('when the body is %j, then it is refused with a clear message', (body, message) => {
    expect(messageOf(body)).toMatch(message);
  });
});

describe('the hand-checked path', () => {
  const bodies: unknown[] = [
    valid,
    { ...valid, properties: {} },
    { ...valid, properties: { plan: 'pro', seats: 3, trial: false, ratio: -0.5, empty: '', ['x'.repeat(128)]: 1 } },
    { email: ' Ann@Example.COM ', event: 'a.b:c-d_e', properties: { z: 1, a: 2 } },
    { ...valid, properties: { ['x'.repeat(129)]: 1 } },
    { ...valid, properties: { '': 1 } },
    { ...valid, properties: { n: Infinity } },
    { ...valid, properties: { n: NaN } },
    { ...valid, properties: { n: null } },
    { ...valid, properties: { n: { deep: 1 } } },
    { ...valid, properties: ['a'] },
    { ...valid, properties: null },
    { ...valid, properties: 'plan=pro' },
    { ...valid, properties: undefined },
    JSON.parse('{"event":"e","email":"a@b.co","properties":{"__proto__":1}}'),
    { ...valid, extra: 1 },
    { ...valid, event: 'e'.repeat(65) },
    { ...valid, event: '' },
    { ...valid, email: 'ann@example' },
    { ...valid, email: `${'a'.repeat(250)}@x.io` },
    { event: 'e' },
    { email: 'a@b.co' },
    [valid],
    'demo',
    null,
    42,
  ];

  it.each(bodies.map((b) => [JSON.stringify(b), b] as const))(
    'when the body is %s, then it gives what the schema gives, or leaves it to the schema',
    (_label, body) => {
      const plain = plainEventInput(body);
      const parsed = eventInputSchema.safeParse(body);
      if (plain !== null) expect(plain).toStrictEqual(parsed.data);
      if (!parsed.success) expect(plain).toBeNull();
    },
  );

  it('when the body is ordinary, then the hand-checked path takes it (the schema is not needed)', () => {
    expect(plainEventInput({ event: 'signup', email: 'Ann@Example.com', properties: { plan: 'pro' } })).toStrictEqual({
      event: 'signup',
      email: 'ann@example.com',
      properties: { plan: 'pro' },
    });
    expect(plainEventInput(valid)).toStrictEqual(valid);
  });
});
