import { parseNewPlaybook, parsePlaybookChanges } from './playbook-input';

function message(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    expect((err as { code: string }).code).toBe('invalid_request');
    return (err as Error).message;
  }
  throw new Error('expected it to throw');
}

describe('playbook bodies', () => {
  it('when a new playbook names only its name, then triggers and exits are left out', () => {
    expect(parseNewPlaybook({ name: 'Nurture' })).toEqual({ name: 'Nurture' });
    expect(parseNewPlaybook({ name: 'N', triggers: ['a'], exits: [] })).toEqual({ name: 'N', triggers: ['a'], exits: [] });
  });

  it('when a new playbook has no name, then it is invalid_request saying so', () => {
    expect(message(() => parseNewPlaybook({ triggers: [] }))).toBe('name is required');
    expect(message(() => parseNewPlaybook({ name: 3 }))).toBe('name must be a string');
  });

  it('when a body carries an unknown field, then it is refused naming the field', () => {
    expect(message(() => parseNewPlaybook({ name: 'x', trigger: ['a'] }))).toContain('unknown field(s): trigger');
    expect(message(() => parsePlaybookChanges({ enabled: true }))).toContain('enabled');
  });

  it('when the body is not an object or the lists are not lists of strings, then it is refused', () => {
    expect(message(() => parseNewPlaybook([]))).toBe('body must be a JSON object');
    expect(message(() => parseNewPlaybook(undefined))).toBe('body must be a JSON object');
    expect(message(() => parsePlaybookChanges({ triggers: 'signed_up' }))).toBe('triggers must be an array of event names');
    expect(message(() => parsePlaybookChanges({ exits: [1] }))).toBe('exits must list event names as strings');
  });

  it('when changes name any subset of fields, then exactly those are returned', () => {
    expect(parsePlaybookChanges({})).toEqual({});
    expect(parsePlaybookChanges({ exits: [] })).toEqual({ exits: [] });
    expect(parsePlaybookChanges({ name: 'Renamed' })).toEqual({ name: 'Renamed' });
  });
});
