// The site a key names, for POST /collect, without asking Postgres on every page view: answers are
// kept `ttlMs` (an origin change takes effect within it), unknown keys `negativeTtlMs` (a made-up
// key costs one query at most per period), concurrent misses share one query, and while Postgres
// fails a site seen before keeps collecting for `staleIfErrorMs`; an unseen key is then 503.
import { LRUCache } from 'lru-cache';
import { AppError } from '@glimpse/errors';
import type { CollectSite } from './site-repository.js';

export interface SiteCacheOptions {
  load(key: string): Promise<CollectSite | null>;
  ttlMs: number;
  negativeTtlMs: number;
  staleIfErrorMs: number;
  maxEntries: number;
}

export interface SiteCache {
  /** The key's site, or null when it names none. */
  get(key: string): Promise<CollectSite | null>;
}

interface Entry {
  site: CollectSite | null;
  fetchedAt: number;
}

export function createSiteCache({ load, ttlMs, negativeTtlMs, staleIfErrorMs, maxEntries }: SiteCacheOptions): SiteCache {
  // One LRU for both answers: it is bounded, and an entry dies once its whole usable life is over.
  const entries = new LRUCache<string, Entry>({ max: maxEntries, ttl: Math.max(ttlMs + staleIfErrorMs, negativeTtlMs, 1), updateAgeOnGet: false });
  const inFlight = new Map<string, Promise<CollectSite | null>>();

  function fetch(key: string): Promise<CollectSite | null> {
    const pending = inFlight.get(key);
    if (pending) return pending;
    const started = load(key).then((site) => {
      entries.set(key, { site, fetchedAt: Date.now() });
      return site;
    });
    inFlight.set(key, started);
    void started.finally(() => inFlight.delete(key)).catch(() => undefined);
    return started;
  }

  return {
    async get(key) {
      const entry = entries.get(key);
      const age = entry ? Date.now() - entry.fetchedAt : Infinity;
      if (entry && age < (entry.site ? ttlMs : negativeTtlMs)) return entry.site;
      try {
        return await fetch(key);
      } catch (err) {
        // Only a site seen valid is served stale: an unknown key is not a reason to collect.
        if (entry?.site && age < ttlMs + staleIfErrorMs) return entry.site;
        throw new AppError('service_unavailable', 'the site cannot be checked right now; retry later', { cause: err, headers: { 'Retry-After': '1' } });
      }
    },
  };
}
