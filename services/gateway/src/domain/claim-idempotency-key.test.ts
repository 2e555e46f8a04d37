import { AppError } from '@glimpse/errors';
import type { IdempotencyStore, KeyState } from './idempotency-store.js';
import { claimIdempotencyKey, overBudget, type ClaimIdempotencyKeyOptions } from './claim-idempotency-key.js';

/** A store whose claim answers the given states in turn (the last one from then on). */
function storeAnswering(...states: (KeyState | null)[]): IdempotencyStore & { claims: number } {
  const store = {
    claims: 0,
    async claim() {
      return states[Math.min(store.claims++, states.length - 1)]!;
    },
    async complete() {},
    async release() {},
  };
  return store;
}

const errors = {
  reused: () => new AppError('idempotency_key_reused', 'reused'),
  inFlight: () => new AppError('idempotency_key_in_flight', 'in flight'),
};
const refuse = { refuse: () => new AppError('service_unavailable', 'no redis') };

const options = (store: IdempotencyStore, more: Partial<ClaimIdempotencyKeyOptions> = {}): ClaimIdempotencyKeyOptions => ({
  store,
  accountId: 'acc',
  key: 'k',
  fingerprint: 'fp',
  waitMs: 500,
  withoutRedis: 'proceed',
  errors,
  ...more,
});

describe('claimIdempotencyKey', () => {
  it('when the key is free, then it is claimed', async () => {
    await expect(claimIdempotencyKey(options(storeAnswering({ state: 'claimed' })))).resolves.toEqual({ state: 'claimed' });
  });

  it('when Redis is down, then it proceeds as claimed or refuses, as the caller chose', async () => {
    await expect(claimIdempotencyKey(options(storeAnswering(null)))).resolves.toEqual({ state: 'claimed' });
    await expect(claimIdempotencyKey(options(storeAnswering(null), { withoutRedis: refuse }))).rejects.toMatchObject({ code: 'service_unavailable' });
  });

  it('when the key is held for another fingerprint, then it is reused; an unknown (old) fingerprint is taken as this one', async () => {
    await expect(claimIdempotencyKey(options(storeAnswering({ state: 'done', fingerprint: 'other' })))).rejects.toMatchObject({
      code: 'idempotency_key_reused',
    });
    await expect(claimIdempotencyKey(options(storeAnswering({ state: 'done', fingerprint: null })))).resolves.toEqual({ state: 'done', answer: undefined });
  });

  it('when the first request is in flight and then done, then the retry polls and gets its answer', async () => {
    const store = storeAnswering(
      { state: 'pending', fingerprint: 'fp' },
      { state: 'pending', fingerprint: 'fp' },
      { state: 'done', fingerprint: 'fp', answer: 'a' },
    );
    await expect(claimIdempotencyKey(options(store))).resolves.toEqual({ state: 'done', answer: 'a' });
    expect(store.claims).toBe(3);
  });

  it('when the first request stays in flight past the wait, then it is in flight', async () => {
    const store = storeAnswering({ state: 'pending', fingerprint: 'fp' });
    await expect(claimIdempotencyKey(options(store, { waitMs: 120 }))).rejects.toMatchObject({ code: 'idempotency_key_in_flight' });
    expect(store.claims).toBeGreaterThanOrEqual(2);
  });

  it('when the account is over its budget of keys, then it is refused 429 with Retry-After until the next hour, and the store is asked once', async () => {
    const store = storeAnswering({ state: 'over_budget' });
    await expect(claimIdempotencyKey(options(store))).rejects.toMatchObject({ code: 'idempotency_budget_exceeded', status: 429 });
    expect(store.claims).toBe(1);
    expect(overBudget(Date.UTC(2026, 0, 1, 10, 59, 30)).headers).toEqual({ 'Retry-After': '30' });
    expect(overBudget(Date.UTC(2026, 0, 1, 10, 0, 0)).headers).toEqual({ 'Retry-After': '3600' });
  });
});
