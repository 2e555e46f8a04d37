// /account/sites: the account's sites in Postgres (identity.sites), each answered with its install
// snippet; a site's traffic and the account's visitors are answered by the visitors service.
import express, { type Request, type Response, type Router } from 'express';
import type { Db } from '@glimpse/db/identity';
import { parseSiteCreate, parseSiteUpdate, siteSnippet } from '../../domain/site-input.js';
import { relay } from '../../data/internal-service.js';
import { createSite, getSite, listSites, removeSite, rotateIdentitySecret, updateSite, type SiteRecord } from '../../data/site-repository.js';
import type { VisitorsClient } from '../../data/visitors-client.js';
import { jsonBody, rawSearch } from './json-body.js';

/** The served tag as the snippet needs it (services/gateway/src/tag builds it). */
export interface TagAsset {
  /** The Subresource Integrity hash of the served /g.js (sha384-…). */
  integrity: string;
}

export interface SiteRoutesOptions {
  db: Db;
  visitors: VisitorsClient;
  tag: () => TagAsset;
  maxSitesPerAccount: number;
  /** Where the tag is served from, as the snippet names it; by default the address the request came to. */
  publicUrl?: string;
}

const account = (res: Response) => res.locals.accountId as string;

export function siteRoutes({ db, visitors, tag, maxSitesPerAccount, publicUrl }: SiteRoutesOptions): Router {
  const router = express.Router();
  const id = (req: Request) => req.params.id as string;
  const answer = (req: Request, site: SiteRecord) => ({
    id: site.id,
    name: site.name,
    key: site.key,
    origins: site.origins,
    track_events: site.trackEvents,
    capture_forms: site.captureForms,
    consent: site.consent,
    honor_gpc: site.honorGpc,
    query_keys: site.queryKeys,
    identity_verification: site.identityVerification,
    new_visitors_per_day: site.newVisitorsPerDay,
    identity_secret_set: site.identitySecretSet,
    createdAt: site.createdAt,
    updatedAt: site.updatedAt,
    snippet: siteSnippet(publicUrl ?? `${req.protocol}://${req.get('host')}`, site.key, tag().integrity),
  });

  router.post('/account/sites', jsonBody, async (req, res) => {
    const site = await createSite(db, account(res), parseSiteCreate(req.body), { maxPerAccount: maxSitesPerAccount });
    // The identity secret is answered here and at a rotation only: never by a GET.
    res.status(201).json({ ...answer(req, site), identity_secret: site.identitySecret });
  });
  router.get('/account/sites', async (req, res) => {
    res.json({ items: (await listSites(db, account(res))).map((s) => answer(req, s)) });
  });
  router.get('/account/sites/:id', async (req, res) => res.json(answer(req, await getSite(db, account(res), id(req)))));
  router.patch('/account/sites/:id', jsonBody, async (req, res) => {
    const changes = parseSiteUpdate(req.body);
    res.json(answer(req, await updateSite(db, account(res), id(req), changes)));
  });
  router.post('/account/sites/:id/identity-secret', async (req, res) => {
    const rotated = await rotateIdentitySecret(db, account(res), id(req));
    res.set('Cache-Control', 'no-store').json({ identity_secret: rotated.identitySecret, previous_expires_at: rotated.previousExpiresAt });
  });
  router.delete('/account/sites/:id', async (req, res) => {
    const refused = await removeSite(db, visitors, account(res), id(req));
    if (refused) return relay(res, refused);
    res.status(204).end();
  });
  router.get('/account/sites/:id/traffic', async (req, res) => {
    const site = await getSite(db, account(res), id(req));
    relay(res, await visitors.call('GET', `/internal/sites/${site.id}/traffic`, account(res)));
  });
  router.get('/account/sites/:id/stats', async (req, res) => {
    const site = await getSite(db, account(res), id(req));
    relay(res, await visitors.call('GET', `/internal/sites/${site.id}/stats`, account(res)));
  });
  router.get('/account/visitors', async (req, res) => relay(res, await visitors.call('GET', `/internal/visitors${rawSearch(req)}`, account(res))));
  return router;
}
