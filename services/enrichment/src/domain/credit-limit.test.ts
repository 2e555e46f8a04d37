import { AppError } from '@glimpse/errors';
import { CREDIT_LIMIT_MAX } from '@glimpse/validation';
import { parseCreditLimitBody } from './credit-limit';

function refusal(body: unknown): { code: string; message: string } {
  try {
    parseCreditLimitBody(body);
  } catch (err) {
    expect(err).toBeInstanceOf(AppError);
    return { code: (err as AppError).code, message: (err as AppError).message };
  }
  throw new Error(`accepted ${JSON.stringify(body)}`);
}

describe('the credit limit body', () => {
  it.each([0, 1, 1000, CREDIT_LIMIT_MAX, null])('when credits is %p, then it is the limit', (credits) => {
    expect(parseCreditLimitBody({ credits })).toBe(credits);
  });

  it.each([-1, 1.5, CREDIT_LIMIT_MAX + 1, Number.MAX_SAFE_INTEGER, '7', true, {}, [3]])('when credits is %p, then it is 400 naming the rule', (credits) => {
    expect(refusal({ credits })).toEqual({
      code: 'invalid_request',
      message: `credits must be a whole number from 0 to ${CREDIT_LIMIT_MAX}, or null for no limit`,
    });
  });

  it('when credits is missing, then it is 400 naming the rule (a missing limit is not "no limit")', () => {
    expect(refusal({})).toEqual({ code: 'invalid_request', message: expect.stringContaining('credits must be a whole number') });
  });

  it.each([[{ credits: 5, extra: 1 }], [null], [undefined], ['5'], [[5]]])('when the body is %p, then it is 400', (body) => {
    expect(refusal(body).code).toBe('invalid_request');
  });
});
