// The public API's OpenAPI document at /openapi.json (generated from the zod schemas at start) and
// a browsable reference at /docs: Swagger UI's assets served from this gateway (no CDN) under the
// console's strict Content-Security-Policy.
import path from 'node:path';
import { Router } from 'express';
import { buildOpenApiDocument } from '@glimpse/api';
import type { RequestHandler } from 'express';
import { CONTENT_SECURITY_POLICY, securityHeaders } from './console-route.js';

/**
 * The console's policy, and images from data: URLs, which Swagger UI's stylesheet uses for its
 * icons (an image cannot run script; scripts and styles still come from this origin only).
 */
const docsHeaders: RequestHandler = (req, res, next) =>
  securityHeaders(req, res, () => {
    res.set('Content-Security-Policy', `${CONTENT_SECURITY_POLICY}; img-src 'self' data:`);
    next();
  });

// src/http → src/docs under jest, dist/http → dist/docs once built (the build copies it).
const DEFAULT_ROOT = path.join(__dirname, '..', 'docs');
const SWAGGER_UI = path.dirname(require.resolve('swagger-ui-dist/package.json'));
const ASSETS = new Set(['swagger-ui.css', 'swagger-ui-bundle.js']);

export function docsRouter({ root = DEFAULT_ROOT }: { root?: string } = {}): Router {
  const router = Router();
  const document = JSON.stringify(buildOpenApiDocument());
  router.get('/openapi.json', (_req, res) => {
    res.set('Cache-Control', 'no-cache').type('application/json').send(document);
  });
  router.get('/docs', docsHeaders, (_req, res) => res.set('Cache-Control', 'no-cache').sendFile(path.join(root, 'index.html')));
  router.get('/docs/init.js', docsHeaders, (_req, res) => res.set('Cache-Control', 'no-cache').sendFile(path.join(root, 'init.js')));
  // Only the two files the page loads: nothing else of the package is reachable.
  router.get('/docs/assets/:file', docsHeaders, (req, res, next) => {
    const file = req.params.file as string;
    if (!ASSETS.has(file)) return next();
    res.set('Cache-Control', 'public, max-age=3600').sendFile(path.join(SWAGGER_UI, file));
  });
  return router;
}
