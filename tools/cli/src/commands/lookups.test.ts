import { CREDIT_LIMIT_MAX } from '@glimpse/validation';
import { UsageError } from '../command';
import { parseCredits } from './lookups';

describe('--credits', () => {
  it.each([
    ['0', 0],
    ['7', 7],
    ['007', 7],
    [String(CREDIT_LIMIT_MAX), CREDIT_LIMIT_MAX],
    ['none', null],
  ])('when it is %p, then the limit is %p', (value, limit) => {
    expect(parseCredits(value)).toBe(limit);
  });

  // Number() would read '', ' 5', '1e3', '0x10' and '5.0' as numbers: none is what an operator means by N.
  it.each(['-1', '1.5', '5.0', '1e3', '0x10', ' 5', '', 'abc', 'None', 'null', String(CREDIT_LIMIT_MAX + 1), '99999999999999999999'])(
    'when it is %p, then it is a usage error naming the rule',
    (value) => {
      expect(() => parseCredits(value)).toThrow(UsageError);
      expect(() => parseCredits(value)).toThrow(`--credits takes a whole number from 0 to ${CREDIT_LIMIT_MAX}, or none`);
    },
  );
});
