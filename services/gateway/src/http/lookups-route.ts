// The lookups (api.md §4.1, §4.2), the company enrichment by domain and the bulk enrichments: API key
// with the endpoint's scope and within its rate limit, then forwarded to the internal enrichment
// service with the authenticated account; with an Idempotency-Key, an enrichment is answered once
// and billed once (24 h).
import express, { type Request, type Response, type Router } from 'express';
import type { Authenticator, Scope } from '@glimpse/auth';
import { AppError } from '@glimpse/errors';
import type { IdempotencyStore } from '../data/idempotency-store.js';
import { idempotentLookup, lookupFingerprint } from '../domain/idempotent-lookup.js';
import type { AddressLimiter } from '../data/address-limiter.js';
import type { EnrichmentClient } from '../data/enrichment-client.js';
import { relay, type UpstreamResponse } from '../data/internal-service.js';
import type { RateLimiter } from '../data/rate-limiter.js';
import type { VisitorsClient } from '../data/visitors-client.js';
import { looksLikeDomain } from '../domain/company-list.js';
import { tagVisitorDetails, type TagVisitorFields } from '../domain/visitor-details.js';
import { authenticate } from './authenticate.js';
import { idempotencyKeyOf } from './idempotency-key.js';
import { jsonBodyParser } from './json-body.js';
import { addressRateHeaders, perCredentialLimit, takeCredentialAndAccount } from './rate-limit.js';

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
  /** The visitors the site tag has seen (their page-view fields and identity link). */
  visitors: VisitorsClient;
  bodyLimitBytes: number;
  /** Per API key and (every key of the account together) per account; per address before authentication. */
  limits: { perKey: RateLimiter; perAccount?: RateLimiter; perAddress: AddressLimiter };
  /** Idempotency-Keys of lookups, and how long a retry waits for a first answer still being made. */
  idempotency: IdempotencyStore;
  inFlightWaitMs: number;
}

/** A bulk enrichment of 100 lookups with every field. */
export const BULK_BODY_LIMIT_BYTES = 256 * 1024;
const MAX_BULK_ITEMS = 100;
const VISITOR_ID = /^[a-fA-F0-9]{24}$/;

const unavailable = (message: string) => new AppError('service_unavailable', message, { headers: { 'Retry-After': '1' } });

/**
 * GET /visitors/{id}/details: the visitors service (the tag's visitors) and enrichment (imported
 * visitors) are asked at once. A visitor the tag has seen wins; identified, the person's fields
 * come from enrichment by its email. Not seen by the tag: enrichment's answer as it is (the
 * imported visitor, or 404). The person's fields are billed as an enrichment, once per person per
 * account per month; without credits the answer has the email and not the fields. The visitors
 * service unreachable: enrichment's imported visitor still answers, but a 404 is not told (the tag
 * may know the visitor): 503 with Retry-After.
 */
async function visitorDetailsAnswer(
  res: Response,
  { enrichment, visitors }: Pick<LookupsRouteOptions, 'enrichment' | 'visitors'>,
  accountId: string,
  visitorId: string,
): Promise<void> {
  // A malformed id is enrichment's 400, as it always was.
  if (!VISITOR_ID.test(visitorId)) return relayLookup(res, await enrichment.visitorDetails(accountId, visitorId));
  const [seen, imported] = await Promise.allSettled([
    visitors.call('GET', `/internal/visitors/${visitorId.toLowerCase()}/details`, accountId),
    enrichment.visitorDetails(accountId, visitorId),
  ]);
  if (seen.status === 'fulfilled' && seen.value.status === 200) {
    const { visitor, email } = seen.value.body as { visitor: TagVisitorFields; email?: string };
    const [person, profile] = await Promise.all([
      email === undefined ? null : enrichment.personDetails(accountId, email),
      firmographicsOf(enrichment, accountId, visitor.company_key),
    ]);
    if (person && person.status !== 200 && person.status !== 404) throw unavailable('the lookup service is unavailable; retry later');
    // Without credits the person is not disclosed: the visitor and the email it gave, no fields.
    const disclosure = person?.status === 200 ? (person.body as { disclosed: boolean; details?: Record<string, unknown> }) : null;
    const fields = disclosure?.disclosed === true ? (disclosure.details ?? null) : null;
    if (person) res.set(person.headers);
    res.json(tagVisitorDetails(visitor, email, fields, profile));
    return;
  }
  const tagKnowsNothing = seen.status === 'fulfilled' && seen.value.status === 404;
  if (imported.status === 'rejected') throw imported.reason;
  if (tagKnowsNothing || imported.value.status === 200) return relayLookup(res, imported.value);
  throw unavailable('the visitors service is unavailable; retry later');
}

/**
 * The firmographics of the company a visitor counts for (by its domain), or null: none known, no
 * domain, or enrichment unreachable — they decorate the answer, which does not wait on them to fail.
 */
async function firmographicsOf(enrichment: EnrichmentClient, accountId: string, key: string | undefined): Promise<Record<string, unknown> | null> {
  if (!key || !looksLikeDomain(key)) return null;
  try {
    const found = await enrichment.companies(accountId, { domains: [key] });
    return found.status === 200 ? ((found.body as { items: Record<string, unknown>[] }).items[0] ?? null) : null;
  } catch {
    return null;
  }
}

type Forward = (accountId: string, body: unknown) => Promise<UpstreamResponse>;

/**
 * POST {path} (one enrichment) and POST {path}/bulk (up to 100; the rate limit counts its lookups:
 * a bulk call of 100 spends what 100 single calls would), each answered once per Idempotency-Key.
 * `fingerprint` names the operation in the key's fingerprint, so one key cannot replay another's answer.
 */
function enrichmentRoutes(router: Router, options: LookupsRouteOptions, path: string, fingerprint: string, one: Forward, bulk: Forward): void {
  const { authenticator, bodyLimitBytes, limits, idempotency, inFlightWaitMs } = options;
  const keyed = (req: Request, res: Response, operation: string) => ({
    store: idempotency,
    accountId: res.locals.accountId as string,
    key: idempotencyKeyOf(req),
    fingerprint: lookupFingerprint(operation, req.body),
    waitMs: inFlightWaitMs,
  });
  const authenticated = authenticate(authenticator, { kind: 'api_key', scope: 'enrichment:read' }, { rateHeaders: limits.perAddress });
  router.post(path, authenticated, perCredentialLimit(limits.perKey, 'lookup', limits.perAccount), jsonBodyParser(bodyLimitBytes), async (req, res) => {
    const accountId = res.locals.accountId as string;
    relayLookup(res, await idempotentLookup(keyed(req, res, fingerprint), () => one(accountId, req.body)));
  });
  router.post(`${path}/bulk`, authenticated, jsonBodyParser(BULK_BODY_LIMIT_BYTES), async (req, res) => {
    const body = req.body as { items?: unknown } | null;
    const items = body !== null && typeof body === 'object' && Array.isArray(body.items) ? body.items.length : 0;
    // A call the service refuses whole (no lookups, more than 100) counts as one request.
    const count = items >= 1 && items <= MAX_BULK_ITEMS ? items : 1;
    await takeCredentialAndAccount(res, limits, 'lookup', count);
    const accountId = res.locals.accountId as string;
    relayLookup(res, await idempotentLookup(keyed(req, res, `${fingerprint}/bulk`), () => bulk(accountId, req.body)));
  });
}

export function lookupsRouter(options: LookupsRouteOptions): Router {
  const { authenticator, enrichment, visitors, limits } = options;
  const router = express.Router();
  router.use('/visitors', addressRateHeaders(limits.perAddress));
  const apiKey = (scope: Scope) => [
    authenticate(authenticator, { kind: 'api_key', scope }, { rateHeaders: limits.perAddress }),
    perCredentialLimit(limits.perKey, 'lookup', limits.perAccount),
  ];

  router.get('/visitors/:visitorId/details', ...apiKey('visitors:read'), async (req, res) => {
    await visitorDetailsAnswer(res, { enrichment, visitors }, res.locals.accountId as string, req.params.visitorId as string);
  });
  // A company by its domain, billed and limited as a person's enrichment.
  router.use('/companies/enrichment', addressRateHeaders(limits.perAddress));
  const enrichments: [path: string, fingerprint: string, one: Forward, bulk: Forward][] = [
    ['/visitors/enrichment', 'enrichment', (a, body) => enrichment.enrich(a, body), (a, body) => enrichment.enrichBulk(a, body)],
    ['/companies/enrichment', 'companies/enrichment', (a, body) => enrichment.enrichCompany(a, body), (a, body) => enrichment.enrichCompaniesBulk(a, body)],
  ];
  for (const [path, fingerprint, one, bulk] of enrichments) enrichmentRoutes(router, options, path, fingerprint, one, bulk);
  return router;
}
