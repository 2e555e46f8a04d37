// GET /g.js: the site tag, and GET /s/<site key>.js: the tag with that site's settings in it (the
// install snippet's script). Both loadable from any site (CORS and CORP open, so SRI works
// cross-origin), cached five minutes (a settings change reaches pages within it plus the site
// cache's) and revalidated by a strong ETag. An unknown key is 404.
import { Router, type Request, type Response } from 'express';
import { LRUCache } from 'lru-cache';
import { AppError } from '@glimpse/errors';
import type { SiteCache } from '../data/site-cache.js';
import type { CollectSite } from '../data/site-repository.js';
import { isSiteKey } from '../domain/site-input.js';
import { tagAsset, tagForSite, type TagAsset, type TagSettings } from './tag-asset.js';

function send(req: Request, res: Response, tag: TagAsset): void {
  res.set({
    'Content-Type': 'application/javascript; charset=utf-8',
    'Cache-Control': 'public, max-age=300',
    ETag: tag.etag,
    Vary: 'Accept-Encoding',
    'Access-Control-Allow-Origin': '*',
    'Cross-Origin-Resource-Policy': 'cross-origin',
    'X-Content-Type-Options': 'nosniff',
  });
  if (req.fresh) {
    res.status(304).end();
    return;
  }
  const gzip = tag.gzipped && req.acceptsEncodings('gzip', 'identity') === 'gzip';
  const body = gzip ? tag.gzipped! : tag.body;
  if (gzip) res.set('Content-Encoding', 'gzip');
  res.set('Content-Length', String(body.length)).end(body);
}

/** What the tag needs of a site's settings (never its origins, track names or account). */
export function tagSettingsOf(key: string, site: Pick<CollectSite, 'consent' | 'captureForms' | 'honorGpc' | 'queryKeys'>): TagSettings {
  return { site: key, consent: site.consent, forms: site.captureForms, gpc: site.honorGpc, query: site.queryKeys };
}

export function tagRouter({ asset = tagAsset }: { asset?: () => TagAsset } = {}): Router {
  const router = Router();
  router.get('/g.js', (req, res) => send(req, res, asset()));
  return router;
}

/** GET /s/<key>.js through the site cache (the collector's: a settings change shows within its TTL). */
export function siteScriptRouter({ sites }: { sites: SiteCache }): Router {
  const router = Router();
  // Built scripts by their settings: a few kilobytes each, rebuilt only when settings change.
  const built = new LRUCache<string, TagAsset>({ max: 1000 });
  router.get('/s/:file', async (req, res) => {
    const file = req.params.file as string;
    const key = file.endsWith('.js') ? file.slice(0, -3) : '';
    const site = isSiteKey(key) ? await sites.get(key, { address: req.ip }) : null;
    if (!site) throw new AppError('not_found', 'no site has this key');
    const settings = tagSettingsOf(key, site);
    const id = JSON.stringify(settings);
    let tag = built.get(id);
    if (!tag) built.set(id, (tag = tagForSite(settings)));
    send(req, res, tag);
  });
  return router;
}
