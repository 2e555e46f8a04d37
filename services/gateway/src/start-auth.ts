// The gateway's authenticator: credential caches sized from the config, look-ups admitted by a
// per-address limiter (the same one the routes use), outcomes counted.
import type { Registry } from 'prom-client';
import { metricsIn } from '@glimpse/logging';
import { createAuthenticator, type Authenticator, type LookupAdmission } from '@glimpse/auth';
import type { Db } from '@glimpse/db/identity';
import type { GatewayConfig } from './config.js';
import { createAddressLimiter, type AddressLimiter } from './data/address-limiter.js';
import type { RateDecision } from './data/rate-limiter.js';

/** A limiter's decision as the authenticator's admission: the reset time is the Retry-After. */
export function toAdmission(decision: RateDecision): LookupAdmission {
  return { allowed: decision.allowed, retryAfterSeconds: decision.resetSeconds };
}

export function createGatewayAuthenticator(
  config: GatewayConfig,
  db: Db,
  registry: Registry,
): { authenticator: Authenticator; addressLimiter: AddressLimiter } {
  const authOutcomes = metricsIn(registry).counter('glimpse_auth_checks_total', 'Credential checks by outcome', ['outcome']);
  const addressLimiter = createAddressLimiter({ perSecond: config.AUTH_LOOKUPS_PER_IP_PER_SECOND, burst: config.AUTH_LOOKUPS_PER_IP_BURST });
  const authenticator = createAuthenticator({
    db,
    cacheTtlMs: config.AUTH_CACHE_TTL_MS,
    staleIfErrorMs: config.AUTH_STALE_IF_ERROR_MS,
    negativeTtlMs: config.AUTH_NEGATIVE_CACHE_TTL_MS,
    maxEntries: config.AUTH_CACHE_MAX_ENTRIES,
    admitLookup: (ip) => toAdmission(addressLimiter.take(ip)),
    observe: (outcome) => authOutcomes.inc({ outcome }),
  });
  return { authenticator, addressLimiter };
}
