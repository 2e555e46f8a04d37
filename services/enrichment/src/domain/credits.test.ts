import { CreditKeeper, type CreditStore, type LeaseOutcome } from './credits.js';

/** A store with `limit` credits (null: no limit) that grants `grant` at a time, counting its calls. */
function fakeStore(limit: number | null, grant: number) {
  let committed = 0;
  const calls = { limitOf: 0, lease: 0, ended: [] as string[] };
  const store: CreditStore = {
    async limitOf() {
      calls.limitOf += 1;
      return limit;
    },
    async lease(): Promise<LeaseOutcome> {
      calls.lease += 1;
      await new Promise((r) => setTimeout(r, 1));
      if (limit === null) return { kind: 'unlimited' };
      const granted = Math.min(grant, limit - committed);
      if (granted <= 0) return { kind: 'exhausted' };
      committed += granted;
      return { kind: 'granted', leaseId: `lease-${calls.lease}`, granted };
    },
    async end(ids) {
      calls.ended.push(...ids);
    },
  };
  return { store, calls, setLimit: (n: number | null) => (limit = n) };
}

describe('CreditKeeper', () => {
  it('when 20 lookups of an account with 7 credits race, then exactly 7 get a credit, from leases taken one at a time', async () => {
    const { store, calls } = fakeStore(7, 3);
    const keeper = new CreditKeeper({ store });
    const credits = await Promise.all(Array.from({ length: 20 }, () => keeper.take('a')));
    expect(credits.filter(Boolean)).toHaveLength(7);
    expect(new Set(credits.filter(Boolean).map((c) => c!.leaseId))).toEqual(new Set(['lease-1', 'lease-2', 'lease-3']));
    expect(calls.lease).toBe(4); // 3 + 3 + 1, then exhausted
  });

  it('when a lookup finds nobody and refunds its credit, then the next lookup spends that credit without a new lease', async () => {
    const { store, calls } = fakeStore(10, 1);
    const keeper = new CreditKeeper({ store });
    const first = await keeper.take('a');
    first!.refund();
    const second = await keeper.take('a');
    expect(second!.leaseId).toBe(first!.leaseId);
    expect(calls.lease).toBe(1);
  });

  it('when the account has no limit, then credits need no lease and the limit is read once a second, not per lookup', async () => {
    let now = 0;
    const { store, calls, setLimit } = fakeStore(null, 1);
    const keeper = new CreditKeeper({ store, unlimitedForMs: 1000, now: () => now });
    for (let i = 0; i < 50; i += 1) expect((await keeper.take('a'))!.leaseId).toBeNull();
    expect(calls).toMatchObject({ limitOf: 1, lease: 0 });
    setLimit(0);
    now = 999;
    expect(await keeper.take('a')).not.toBeNull();
    now = 1000;
    expect(await keeper.take('a')).toBeNull();
  });

  it('when a lease is older than its use window, then it is no longer spent from: a new lease is taken', async () => {
    let now = 0;
    const { store } = fakeStore(100, 50);
    const keeper = new CreditKeeper({ store, useForMs: 20_000, now: () => now });
    expect((await keeper.take('a'))!.leaseId).toBe('lease-1');
    now = 20_000;
    expect((await keeper.take('a'))!.leaseId).toBe('lease-2');
  });

  it('when an exhausted account is given more credits, then the next lookup gets one at once', async () => {
    const { store, setLimit } = fakeStore(1, 5);
    const keeper = new CreditKeeper({ store });
    expect(await keeper.take('a')).not.toBeNull();
    expect(await keeper.take('a')).toBeNull();
    setLimit(2);
    expect(await keeper.take('a')).not.toBeNull();
  });

  it('when released, then only leases with credits left and nothing in flight are ended', async () => {
    const { store, calls } = fakeStore(100, 2);
    const keeper = new CreditKeeper({ store });
    (await keeper.take('idle'))!.spent();
    await keeper.take('busy'); // in flight
    await keeper.release();
    expect(calls.ended).toEqual(['lease-1']);
  });
});
