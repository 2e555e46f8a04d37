// GET /g.js: the site tag, loadable from any site (CORS and CORP open, so SRI works cross-origin),
// cached five minutes and revalidated by its strong ETag.
import { Router } from 'express';
import { tagAsset, type TagAsset } from './tag-asset.js';

export function tagRouter({ asset = tagAsset }: { asset?: () => TagAsset } = {}): Router {
  const router = Router();
  router.get('/g.js', (req, res) => {
    const tag = asset();
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
  });
  return router;
}
