// The lookups (spec §4.1, §4.2) and the bulk enrichment: API key with the endpoint's scope and
// within its rate limit, then forwarded to the internal enrichment service with the authenticated
// account; with an Idempotency-Key, an enrichment is answered once and billed once (24 h).
import express, { type Request, type Response, type Router } from 'express';
import type { Authenticator, Scope } from '@glimpse/auth';
import { AppError } from '@glimpse/errors';
import type { IdempotencyStore } from '../data/idempotency-store.js';
import { idempotentLookup, lookupFingerprint } from '../domain/idempotent-lookup.js';
import type { AddressLimiter } from '../data/address-limiter.js';
import type { EnrichmentClient } from '../data/enrichment-client.js';
import { relay, type UpstreamResponse } from '../data/internal-service.js';
import type { RateLimiter } from '../data/rate-limiter.js';
import { authenticate } from './authenticate.js';
import { jsonBody } from './json-body.js';
import { addressRateHeaders, perCredentialLimit, refusal, setRateLimitHeaders } from './rate-limit.js';

/**
 * A lookup's answer as the enrichment service sent it. A 200 skips express's send(), whose ETag is
 * a SHA-1 of every ~8 KB record that no client revalidates; anything else goes through relay().
 */
function relayLookup(res: Response, upstream: UpstreamResponse): void {
  if (upstream.status !== 200) return relay(res, upstream);
  res.set(upstream.headers);
  res.status(200).setHeader('content-type', 'application/json; charset=utf-8');
  res.end(upstream.raw);
}

export interface LookupsRouteOptions {
  authenticator: Authenticator;
  enrichment: EnrichmentClient;
  bodyLimitBytes: number;
  limits: { perKey: RateLimiter; perAddress: AddressLimiter };
  /** Idempotency-Keys of lookups, and how long a retry waits for a first answer still being made. */
  idempotency: IdempotencyStore;
  inFlightWaitMs: number;
}

/** A bulk enrichment of 100 lookups with every field. */
export const BULK_BODY_LIMIT_BYTES = 256 * 1024;
const MAX_BULK_ITEMS = 100;
const IDEMPOTENCY_KEY = /^[A-Za-z0-9._:-]{1,128}$/;

function idempotencyKeyOf(req: Request): string | undefined {
  const key = req.get('idempotency-key');
  if (key !== undefined && !IDEMPOTENCY_KEY.test(key)) throw new AppError('invalid_request', 'Idempotency-Key must be 1 to 128 letters, digits or . _ : -');
  return key;
}

export function lookupsRouter({ authenticator, enrichment, bodyLimitBytes, limits, idempotency, inFlightWaitMs }: LookupsRouteOptions): Router {
  const router = express.Router();
  router.use('/visitors', addressRateHeaders(limits.perAddress));
  const apiKey = (scope: Scope) => [authenticate(authenticator, { kind: 'api_key', scope }, { rateHeaders: limits.perAddress }), perCredentialLimit(limits.perKey, 'lookup')];

  router.get('/visitors/:visitorId/details', ...apiKey('visitors:read'), async (req, res) => {
    const upstream = await enrichment.visitorDetails(res.locals.accountId as string, req.params.visitorId as string);
    relayLookup(res, upstream);
  });
  const keyed = (req: Request, res: Response, path: string) => ({
    store: idempotency,
    accountId: res.locals.accountId as string,
    key: idempotencyKeyOf(req),
    fingerprint: lookupFingerprint(path, req.body),
    waitMs: inFlightWaitMs,
  });
  router.post('/visitors/enrichment', ...apiKey('enrichment:read'), ...jsonBody(bodyLimitBytes), async (req, res) => {
    const accountId = res.locals.accountId as string;
    relayLookup(res, await idempotentLookup(keyed(req, res, 'enrichment'), () => enrichment.enrich(accountId, req.body)));
  });
  // The rate limit counts lookups: a bulk call of 100 spends what 100 single calls would.
  router.post(
    '/visitors/enrichment/bulk',
    authenticate(authenticator, { kind: 'api_key', scope: 'enrichment:read' }, { rateHeaders: limits.perAddress }),
    ...jsonBody(BULK_BODY_LIMIT_BYTES),
    async (req, res) => {
      const body = req.body as { items?: unknown } | null;
      const items = body !== null && typeof body === 'object' && Array.isArray(body.items) ? body.items.length : 0;
      // A call the service refuses whole (no lookups, more than 100) counts as one request.
      const count = items >= 1 && items <= MAX_BULK_ITEMS ? items : 1;
      const d = await limits.perKey.take(res.locals.credentialId as string, count);
      setRateLimitHeaders(res, d);
      if (!d.allowed) throw refusal(d, 'too many lookup requests for this API key; slow down and retry');
      const accountId = res.locals.accountId as string;
      relayLookup(res, await idempotentLookup(keyed(req, res, 'enrichment/bulk'), () => enrichment.enrichBulk(accountId, req.body)));
    },
  );
  return router;
}
