// The lookups (spec §4.1, §4.2): API key with the endpoint's scope and within its rate limit,
// then forwarded to the internal enrichment service with the authenticated account.
import express, { type Response, type Router } from 'express';
import type { Authenticator, Scope } from '@glimpse/auth';
import type { AddressLimiter } from '../data/address-limiter.js';
import type { EnrichmentClient } from '../data/enrichment-client.js';
import { relay, type UpstreamResponse } from '../data/internal-service.js';
import type { RateLimiter } from '../data/rate-limiter.js';
import { authenticate } from './authenticate.js';
import { jsonBody } from './json-body.js';
import { addressRateHeaders, perCredentialLimit } from './rate-limit.js';

/**
 * A lookup's answer as the enrichment service sent it. A 200 skips express's send(), whose ETag is
 * a SHA-1 of every ~8 KB record that no client revalidates; anything else goes through relay().
 */
function relayLookup(res: Response, upstream: UpstreamResponse): void {
  if (upstream.status !== 200) return relay(res, upstream);
  res.status(200).setHeader('content-type', 'application/json; charset=utf-8');
  res.end(upstream.raw);
}

export interface LookupsRouteOptions {
  authenticator: Authenticator;
  enrichment: EnrichmentClient;
  bodyLimitBytes: number;
  limits: { perKey: RateLimiter; perAddress: AddressLimiter };
}

export function lookupsRouter({ authenticator, enrichment, bodyLimitBytes, limits }: LookupsRouteOptions): Router {
  const router = express.Router();
  router.use('/visitors', addressRateHeaders(limits.perAddress));
  const apiKey = (scope: Scope) => [authenticate(authenticator, { kind: 'api_key', scope }, { rateHeaders: limits.perAddress }), perCredentialLimit(limits.perKey, 'lookup')];

  router.get('/visitors/:visitorId/details', ...apiKey('visitors:read'), async (req, res) => {
    const upstream = await enrichment.visitorDetails(res.locals.accountId as string, req.params.visitorId as string);
    relayLookup(res, upstream);
  });
  router.post('/visitors/enrichment', ...apiKey('enrichment:read'), ...jsonBody(bodyLimitBytes), async (req, res) => {
    const upstream = await enrichment.enrich(res.locals.accountId as string, req.body);
    relayLookup(res, upstream);
  });
  return router;
}
