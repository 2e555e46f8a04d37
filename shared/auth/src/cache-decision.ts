// How one authentication is answered, decided from what the caches hold and how the database has
// been doing; no I/O, so every branch is tested on its own.

export interface CacheState {
  /** How old the known entry for the credential is; undefined when there is none. */
  entryAgeMs: number | undefined;
  /** The credential is in the negative cache (unknown or revoked a moment ago). */
  negative: boolean;
  /** A look-up of this credential is already under way. */
  inFlight: boolean;
  dbSuspect: boolean;
  dbFailing: boolean;
}

export type CacheDecision =
  | { action: 'serve_cached' }
  | { action: 'serve_negative' }
  /** Known a moment ago and the database failed a moment ago: the last answer stands; refreshed in the background unless no look-up may be tried. */
  | { action: 'serve_stale'; refresh: boolean }
  /** The database is failing: the last answer if there is one, else 503. */
  | { action: 'stale_or_unavailable' }
  /** Ask the database; `admit`: the look-up is a new one and needs the per-address admission first. */
  | { action: 'look_up'; admit: boolean };

export function decideFromCache(state: CacheState, cacheTtlMs: number): CacheDecision {
  const hasEntry = state.entryAgeMs !== undefined;
  if (hasEntry && state.entryAgeMs! < cacheTtlMs) return { action: 'serve_cached' };
  if (state.negative) return { action: 'serve_negative' };
  if (hasEntry && state.dbSuspect) return { action: 'serve_stale', refresh: !state.dbFailing };
  if (state.dbFailing && !state.inFlight) return { action: 'stale_or_unavailable' };
  return { action: 'look_up', admit: !hasEntry && !state.inFlight };
}
