import { parseNewApiKey } from './api-key-input';

function message(body: unknown): string {
  try {
    parseNewApiKey(body);
  } catch (err) {
    expect((err as { code: string }).code).toBe('invalid_request');
    return (err as Error).message;
  }
  throw new Error('expected it to throw');
}

describe('parseNewApiKey', () => {
  it('when scopes are a subset of the known ones, then they are kept once each, in order', () => {
    expect(parseNewApiKey({ scopes: ['enrichment:read', 'visitors:read', 'enrichment:read'] })).toEqual({ scopes: ['enrichment:read', 'visitors:read'] });
    expect(parseNewApiKey({ scopes: ['account:manage'] })).toEqual({ scopes: ['account:manage'] });
  });

  it.each([
    [{}, 'scopes is required'],
    [{ scopes: [] }, 'give the key at least one scope'],
    [{ scopes: 'visitors:read' }, 'scopes must be an array'],
    [{ scopes: ['admin'] }, 'each scope must be one of visitors:read, enrichment:read, account:manage'],
    [{ scopes: ['visitors:read'], name: 'x' }, 'unknown field(s): name'],
    [null, 'body must be a JSON object'],
    [['visitors:read'], 'body must be a JSON object'],
  ])('when the body is %p, then it is invalid_request: %s', (body, expected) => {
    expect(message(body)).toContain(expected);
  });
});
