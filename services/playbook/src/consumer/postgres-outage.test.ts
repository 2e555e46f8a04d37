import { knownPostgresOutage } from './postgres-outage';

describe('knownPostgresOutage', () => {
  it.each([
    ['connection refused', Object.assign(new Error('connect'), { code: 'ECONNREFUSED' })],
    ['a transaction timeout (P2028)', Object.assign(new Error('Transaction already closed'), { code: 'P2028' })],
    ['a refusal wrapped as the cause', new Error('apply failed', { cause: Object.assign(new Error('reset'), { code: 'ECONNRESET' }) })],
  ])('when the error is %s, then it is an outage', (_what, err) => {
    expect(knownPostgresOutage(err)).toBe(true);
  });

  it.each([
    ['a unique violation (the data)', Object.assign(new Error('duplicate key'), { code: 'P2002' })],
    ['a plain error', new Error('bad value')],
  ])('when the error is %s, then it is not', (_what, err) => {
    expect(knownPostgresOutage(err)).toBe(false);
  });
});
