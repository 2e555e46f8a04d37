import { AppError } from '@glimpse/errors';
import { idempotencyKeyOf } from './idempotency-key';

const withKey = (key: string | string[] | undefined) => ({ headers: key === undefined ? {} : { 'idempotency-key': key } });

function refusal(key: string | string[]): unknown {
  try {
    idempotencyKeyOf(withKey(key));
  } catch (err) {
    return err;
  }
  return undefined;
}

describe('idempotencyKeyOf', () => {
  it('when there is no Idempotency-Key, then there is no key', () => {
    expect(idempotencyKeyOf(withKey(undefined))).toBeUndefined();
  });

  it.each([['a'], ['order-42'], ['A.b_c:d-9'], ['x'.repeat(128)]])('when the key is %s, then it is the key', (key) => {
    expect(idempotencyKeyOf(withKey(key))).toBe(key);
  });

  it.each([[''], ['x'.repeat(129)], ['has space'], ['a/b'], ['one, two'], ['é'], [['a', 'b']]])(
    'when the key is %j, then it is a 400 invalid_request',
    (key) => {
      const err = refusal(key);
      expect(err).toBeInstanceOf(AppError);
      expect(err).toMatchObject({ code: 'invalid_request', message: 'Idempotency-Key must be 1 to 128 letters, digits or . _ : -' });
    },
  );
});
