// Serves the web console's static files at /console. The page itself holds no data: it calls the
// management API (/account/…) with the key the person signs in with, kept in memory only.
import fs from 'node:fs';
import path from 'node:path';
import express, { Router, type RequestHandler } from 'express';
import { bundleConsole } from './console-bundle.js';

// src/http → src/console under jest, dist/http → dist/console once built (the build copies its
// static files and writes console.js, the bundle of src/console/app).
const DEFAULT_ROOT = path.join(__dirname, '..', 'console');

export const CONTENT_SECURITY_POLICY = ["default-src 'self'", "base-uri 'none'", "form-action 'self'", "frame-ancestors 'none'", "object-src 'none'"].join(
  '; ',
);

export const securityHeaders: RequestHandler = (_req, res, next) => {
  res.set({
    'Content-Security-Policy': CONTENT_SECURITY_POLICY,
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer',
    'X-Frame-Options': 'DENY',
    'Cross-Origin-Opener-Policy': 'same-origin',
    'Cross-Origin-Resource-Policy': 'same-origin',
  });
  next();
};

export function consoleRouter({ root = DEFAULT_ROOT }: { root?: string } = {}): Router {
  const router = Router();
  router.use(
    '/console',
    securityHeaders,
    express.static(root, {
      index: 'index.html',
      dotfiles: 'ignore',
      // File names carry no version (no build step), so browsers revalidate every time; the ETag
      // makes that a 304 of a few bytes.
      setHeaders: (res) => res.setHeader('Cache-Control', 'no-cache'),
    }),
  );
  // Under src (jest) there is no built console.js: the modules are bundled at first request.
  if (!fs.existsSync(path.join(root, 'console.js'))) router.get('/console/console.js', securityHeaders, bundledFromSources());
  return router;
}

function bundledFromSources(): RequestHandler {
  let bundle: Promise<string> | undefined;
  return (_req, res, next) => {
    (bundle ??= bundleConsole()).then(
      (text) => void res.set({ 'Content-Type': 'text/javascript; charset=utf-8', 'Cache-Control': 'no-cache' }).send(text),
      (err: unknown) => {
        bundle = undefined; // a module fixed since is bundled on the next request
        next(err);
      },
    );
  };
}
