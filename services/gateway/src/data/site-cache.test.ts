import { createAddressLimiter } from './address-limiter';
import { createSiteCache } from './site-cache';
import type { CollectSite } from './site-repository';

const site: CollectSite = {
  id: 'site-1',
  accountId: 'acc-1',
  origins: ['https://a.com'],
  trackEvents: [],
  captureForms: false,
  consent: 'implied',
  honorGpc: true,
  queryKeys: [],
  identityVerification: 'off',
  identity: { identitySecret: null, previousIdentitySecret: null, previousIdentitySecretExpiresAt: null },
  workflows: true,
};

function cache(load: (key: string) => Promise<CollectSite | null>, overrides: Partial<Parameters<typeof createSiteCache>[0]> = {}) {
  return createSiteCache({ load, ttlMs: 1000, negativeTtlMs: 1000, staleIfErrorMs: 10_000, maxEntries: 2, ...overrides });
}

describe('site cache', () => {
  afterEach(() => jest.useRealTimers());

  it('when a key is asked twice within the TTL, then Postgres is asked once; concurrent misses share the query', async () => {
    const load = jest.fn(async () => site);
    const c = cache(load);
    await Promise.all([c.get('k'), c.get('k')]);
    expect(await c.get('k')).toBe(site);
    expect(load).toHaveBeenCalledTimes(1);
  });

  it('when a key names no site, then the answer is remembered for the negative TTL', async () => {
    jest.useFakeTimers({ now: 0 });
    const load = jest.fn(async () => null);
    const c = cache(load, { negativeTtlMs: 500 });
    expect(await c.get('nope')).toBeNull();
    expect(await c.get('nope')).toBeNull();
    expect(load).toHaveBeenCalledTimes(1);
    jest.setSystemTime(600);
    await c.get('nope');
    expect(load).toHaveBeenCalledTimes(2);
  });

  it('when Postgres fails after the TTL, then a known site is served stale, an unknown key is 503', async () => {
    jest.useFakeTimers({ now: 0 });
    let failing = false;
    const c = cache(async (key) => {
      if (failing) throw new Error('db down');
      return key === 'known' ? site : null;
    });
    await c.get('known');
    failing = true;
    jest.setSystemTime(5000);
    expect(await c.get('known')).toBe(site);
    await expect(c.get('other')).rejects.toMatchObject({ code: 'service_unavailable' });
    jest.setSystemTime(20_000);
    await expect(c.get('known')).rejects.toMatchObject({ code: 'service_unavailable' });
  });

  it('when more keys are seen than it holds, then the oldest is dropped', async () => {
    const load = jest.fn(async () => site);
    const c = cache(load);
    await c.get('a');
    await c.get('b');
    await c.get('c');
    await c.get('a');
    expect(load).toHaveBeenCalledTimes(4);
  });

  it('when many unknown keys are looked up, then they never push a real site out of the cache', async () => {
    const load = jest.fn(async (key: string) => (key === 'real' ? site : null));
    const c = cache(load, { maxUnknownEntries: 2 });
    await c.get('real');
    for (let i = 0; i < 50; i++) await c.get(`made-up-${i}`);
    expect(await c.get('real')).toBe(site);
    expect(load.mock.calls.filter(([key]) => key === 'real')).toHaveLength(1);
  });

  it('when an address looks up more unknown keys than its budget, then the next is 429 without a query; real sites cost it nothing; other addresses and cached keys are unaffected', async () => {
    const load = jest.fn(async (key: string) => (key === 'real' || key === 'real2' ? site : null));
    const lookups: string[] = [];
    const c = cache(load, { maxEntries: 10, missLimiter: createAddressLimiter({ perSecond: 0.001, burst: 3 }), onLookup: (r) => lookups.push(r) });
    const from = { address: '203.0.113.9' };
    expect(await c.get('real', from)).toBe(site);
    await c.get('x1', from);
    await c.get('x2', from);
    expect(await c.get('real2', from)).toBe(site);
    await c.get('x3', from);
    await expect(c.get('x4', from)).rejects.toMatchObject({ code: 'rate_limited', status: 429 });
    expect(load).toHaveBeenCalledTimes(5);
    expect(lookups).toEqual(['site', 'unknown', 'unknown', 'site', 'unknown', 'refused']);
    // Cached answers cost nothing; another address has its own budget.
    expect(await c.get('real', from)).toBe(site);
    expect(await c.get('x1', from)).toBeNull();
    expect(await c.get('x4', { address: '198.51.100.1' })).toBeNull();
  });
});
