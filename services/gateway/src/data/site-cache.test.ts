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
});
