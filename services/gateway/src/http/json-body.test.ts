import { MAX_JSON_DEPTH, jsonProblem } from './json-body';

function nested(depth: number): unknown {
  let value: unknown = 'leaf';
  for (let i = 0; i < depth; i++) value = i % 2 ? [value] : { a: value };
  return value;
}

describe('jsonProblem', () => {
  it('when a body is an ordinary event or playbook, then there is no problem', () => {
    expect(jsonProblem({ event: 'signed_up', email: 'a@b.co', properties: { plan: 'pro', n: 1, ok: true } })).toBeNull();
    expect(jsonProblem({ name: 'Win-back', triggers: ['signed_up'], exits: [] })).toBeNull();
    expect(jsonProblem('text with an emoji 😀')).toBeNull();
    expect(jsonProblem(nested(MAX_JSON_DEPTH))).toBeNull();
  });

  it('when a body nests deeper than the limit (even 100 000 levels), then it is refused without exhausting the stack', () => {
    expect(jsonProblem(nested(MAX_JSON_DEPTH + 1))).toMatch(/nested deeper/);
    expect(jsonProblem(JSON.parse('['.repeat(100_000) + ']'.repeat(100_000)))).toMatch(/nested deeper/);
  });

  it.each([['__proto__'], ['constructor']])('when a body names %s, at any level, then it is refused', (name) => {
    expect(jsonProblem(JSON.parse(`{"event":"x","properties":{"${name}":null}}`))).toBe(`the name "${name}" is not accepted`);
    expect(jsonProblem(JSON.parse(`{"${name}":{"prototype":{"x":1}}}`))).toBe(`the name "${name}" is not accepted`);
  });

  it.each([
    ['a NUL in a value', { email: 'a\u0000@b.co' }],
    ['a NUL in a name', { properties: { 'pl\u0000an': 'x' } }],
    ['a lone high surrogate', { event: 'x', email: '\ud800@b.co' }],
    ['a lone low surrogate', ['\udc00']],
  ])('when a body holds %s, then it is refused', (_what, body) => {
    expect(jsonProblem(body)).toMatch(/NUL characters or unpaired surrogates/);
  });
});
