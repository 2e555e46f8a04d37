// The site a key names, for POST /collect, without asking Postgres on every page view: answers are
// kept `ttlMs` (an origin change takes effect within it), unknown keys `negativeTtlMs` (a made-up
// key costs one query at most per period), concurrent misses share one query, and while Postgres
// fails a site seen before keeps collecting for `staleIfErrorMs`; an unseen key is then 503.
//
// Real sites and unknown keys live in two LRUs: made-up keys, however many, only ever push out
// other made-up keys, never a real site (which a Postgres outage would then turn into a 503). A
// key that reaches Postgres first takes a token from its client address's budget (`missLimiter`),
// given back when the key names a site: so only unknown keys spend it, and an address out of
// tokens is refused (429 with Retry-After) before the query. One address cannot turn random keys
// into queries, and a network behind one address visiting many real sites is not held up.
import { LRUCache } from 'lru-cache';
import { AppError } from '@glimpse/errors';
import type { AddressLimiter } from './address-limiter.js';
import type { CollectSite } from './site-repository.js';

export interface SiteCacheOptions {
  load(key: string): Promise<CollectSite | null>;
  ttlMs: number;
  negativeTtlMs: number;
  staleIfErrorMs: number;
  /** Real sites held. */
  maxEntries: number;
  /** Unknown keys held, apart from the real sites. */
  maxUnknownEntries?: number;
  /** Per client address: look-ups that reach Postgres. None: unlimited. */
  missLimiter?: AddressLimiter;
  /** Each look-up that reached Postgres, by what it found, or that the address was refused one. */
  onLookup?(result: 'site' | 'unknown' | 'failed' | 'refused'): void;
}

export interface SiteCache {
  /** The key's site, or null when it names none. `address`: the client, whose budget a miss spends. */
  get(key: string, from?: { address: string | undefined }): Promise<CollectSite | null>;
}

interface Entry<T> {
  value: T;
  fetchedAt: number;
}

/** What a cache's loader fills: the sites, the unknown keys, and the queries under way. */
interface LoaderTables extends Pick<SiteCacheOptions, 'load' | 'onLookup'> {
  sites: LRUCache<string, Entry<CollectSite>>;
  unknown: LRUCache<string, Entry<null>>;
  inFlight: Map<string, Promise<CollectSite | null>>;
}

/** The site behind a key, one query per key at a time (requests meanwhile share it); its answer fills the cache. */
function singleFlight({ load, sites, unknown, inFlight, onLookup }: LoaderTables): (key: string) => Promise<CollectSite | null> {
  return (key) => {
    const pending = inFlight.get(key);
    if (pending) return pending;
    const started = load(key).then(
      (site) => {
        onLookup?.(site ? 'site' : 'unknown');
        if (site) {
          sites.set(key, { value: site, fetchedAt: Date.now() });
          unknown.delete(key);
        } else {
          unknown.set(key, { value: null, fetchedAt: Date.now() });
          sites.delete(key);
        }
        return site;
      },
      (err: unknown) => {
        onLookup?.('failed');
        throw err;
      },
    );
    inFlight.set(key, started);
    void started.finally(() => inFlight.delete(key)).catch(() => undefined);
    return started;
  };
}

export function createSiteCache({
  load,
  ttlMs,
  negativeTtlMs,
  staleIfErrorMs,
  maxEntries,
  maxUnknownEntries = maxEntries,
  missLimiter,
  onLookup,
}: SiteCacheOptions): SiteCache {
  // Bounded, and an entry dies once its whole usable life is over.
  const sites = new LRUCache<string, Entry<CollectSite>>({ max: maxEntries, ttl: Math.max(ttlMs + staleIfErrorMs, 1), updateAgeOnGet: false });
  const unknown = new LRUCache<string, Entry<null>>({ max: maxUnknownEntries, ttl: Math.max(negativeTtlMs, 1), updateAgeOnGet: false });
  const inFlight = new Map<string, Promise<CollectSite | null>>();

  const fetch = singleFlight({ load, sites, unknown, inFlight, onLookup });

  return {
    async get(key, from) {
      const entry = sites.get(key);
      const age = entry ? Date.now() - entry.fetchedAt : Infinity;
      if (entry && age < ttlMs) return entry.value;
      const miss = entry ? undefined : unknown.get(key);
      if (miss && Date.now() - miss.fetchedAt < negativeTtlMs) return null;
      // Only the request that starts a query pays for it; those that join it share its answer.
      const payer = missLimiter && from && !inFlight.has(key) ? from : undefined;
      if (payer) {
        const d = missLimiter!.take(payer.address);
        if (!d.allowed) {
          // A site seen valid is served stale rather than refused; an unknown key waits.
          if (entry && age < ttlMs + staleIfErrorMs) return entry.value;
          onLookup?.('refused');
          throw new AppError('rate_limited', 'too many unknown site keys from this address; slow down and retry', {
            headers: { 'Retry-After': String(d.resetSeconds) },
          });
        }
      }
      try {
        const site = await fetch(key);
        if (site && payer) missLimiter!.refund(payer.address);
        return site;
      } catch (err) {
        // Only a site seen valid is served stale: an unknown key is not a reason to collect.
        if (entry && age < ttlMs + staleIfErrorMs) return entry.value;
        throw new AppError('service_unavailable', 'the site cannot be checked right now; retry later', { cause: err, headers: { 'Retry-After': '1' } });
      }
    },
  };
}
