// The management API under /account: an API key with the account:manage scope, acting on the
// key's own account (another account's ids are not found). Credentials live in Postgres (shared
// auth); playbooks, enrollments and the catalog in the playbook service; usage in the enrichment
// service; recent raw events in Redis; sites in Postgres, their traffic and visitors in the visitors service.
import express, { type Router } from 'express';
import type { Authenticator, CredentialCaps } from '@glimpse/auth';
import type { Db } from '@glimpse/db/identity';
import type { AddressLimiter } from '../../data/address-limiter.js';
import type { RateLimiter } from '../../data/rate-limiter.js';
import type { RawEventStore } from '../../data/raw-event-store.js';
import { authenticateRequest } from '../authenticate.js';
import { requireWorkflows, WORKFLOWS_PATHS } from './workflows-addon.js';
import { addressRateHeaders, perCredentialLimit } from '../rate-limit.js';
import { credentialRoutes } from './credential-routes.js';
import { forwardedRoutes } from './forwarded-routes.js';
import { recentEventsRoute } from './recent-events-route.js';
import { webhookRoutes } from './webhook-routes.js';
import { siteRoutes, type TagAsset } from './site-routes.js';
import { linkTokenRoutes } from './link-token-routes.js';
import { visitorRoutes } from './visitor-routes.js';
import { companyRoutes } from './company-routes.js';
import { segmentRoutes } from './segment-routes.js';
import type { LinkTokenRevocations } from '../../data/link-token-revocations.js';
import type { LinkTokens } from '../../domain/link-token.js';
import type { ServiceClients } from '../../start-clients.js';

export interface AccountRouterOptions {
  authenticator: Authenticator;
  db: Db;
  /** The other services' internal APIs the management API forwards to. */
  services: ServiceClients;
  rawStore: RawEventStore;
  linkTokens: LinkTokens;
  /** Revocations of link tokens: written by DELETE /account/link-tokens… and by an erasure. */
  linkTokenRevocations: LinkTokenRevocations;
  sites: { tag: () => TagAsset; maxPerAccount: number; publicUrl?: string };
  /** Per API key and (every key of the account together) per account; per address before authentication. */
  limits: { perKey: RateLimiter; perAccount?: RateLimiter; perAddress: AddressLimiter };
  /** Caps of the account's active event tokens and API keys. */
  credentialCaps?: Partial<CredentialCaps>;
}

export function accountRouter({
  authenticator,
  db,
  services,
  rawStore,
  linkTokens,
  linkTokenRevocations,
  sites,
  limits,
  credentialCaps,
}: AccountRouterOptions): Router {
  const router = express.Router();
  router.use(
    '/account',
    addressRateHeaders(limits.perAddress),
    async (req, res, next) => {
      const principal = await authenticateRequest(authenticator, { kind: 'api_key', scope: 'account:manage' }, req, res, { rateHeaders: limits.perAddress });
      // The workflows add-on, read with the credential (and cached with it).
      res.locals.workflows = principal.workflows;
      next();
    },
    perCredentialLimit(limits.perKey, 'management', limits.perAccount),
  );
  router.use(WORKFLOWS_PATHS, requireWorkflows);
  router.post('/account/event-tokens', requireWorkflows);
  router.use(credentialRoutes({ db, caps: credentialCaps }));
  router.use(recentEventsRoute({ rawStore })); // before GET /account/events/{eventId}
  router.use(forwardedRoutes({ ...services, rawStore, linkTokens: { tokens: linkTokens, revocations: linkTokenRevocations } }));
  router.use(webhookRoutes({ webhooks: services.webhooks }));
  router.use(linkTokenRoutes({ linkTokens, revocations: linkTokenRevocations }));
  router.use(visitorRoutes({ visitors: services.visitors }));
  router.use(companyRoutes({ visitors: services.visitors, enrichment: services.enrichment }));
  router.use(segmentRoutes({ visitors: services.visitors, enrichment: services.enrichment }));
  router.use(siteRoutes({ db, visitors: services.visitors, tag: sites.tag, maxSitesPerAccount: sites.maxPerAccount, publicUrl: sites.publicUrl }));
  return router;
}
