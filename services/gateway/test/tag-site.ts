// What the site tag's browser tests serve themselves: a small website (one server, reached as
// http://127.0.0.1:P and http://localhost:P, two origins) whose every path is a page with the tag,
// and a collector that serves the tag and records what it posts.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { tagForSite, type TagSettings } from '../src/tag/tag-asset';
import { tagRouter } from '../src/tag/tag-route';

export interface TestSite {
  /** The registered origin: http://127.0.0.1:P. */
  origin: string;
  /** The same server under another origin: http://localhost:P. */
  foreignOrigin: string;
  stop(): Promise<void>;
}

export interface PageOptions {
  /** The collector's base URL (where /g.js and /collect are). */
  collector: string;
  siteKey: string;
  /** Adds the queue stub and these calls as an inline script before the tag. */
  stubCalls?: string;
  /** Served with `Content-Security-Policy: script-src <collector>`: the tag's script element alone. */
  strictCsp?: boolean;
  /** Includes the tag twice. */
  twice?: boolean;
  /** The tag's element as given (the console's install snippet) instead of the plain one. */
  snippet?: string;
  /** The per-site script /s/<key>.js (the receiver's `settings`) instead of /g.js with data-site. */
  perSite?: boolean;
  /** More attributes on the plain tag element, e.g. `data-consent="required"`. */
  tagAttributes?: Record<string, string>;
  /** HTML after the heading (forms, links). */
  body?: string;
}

const escape = (s: string) => s.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);

/** The page for a path: its title names the path, so page views can be told apart. */
export function sitePage(path: string, options: PageOptions): { headers: Record<string, string>; html: string } {
  const attributes = Object.entries(options.tagAttributes ?? {})
    .map(([name, value]) => ` ${name}="${escape(value)}"`)
    .join('');
  const src = options.perSite ? `${options.collector}/s/${options.siteKey}.js` : `${options.collector}/g.js`;
  const tag = options.snippet ?? `<script async src="${escape(src)}"${options.perSite ? '' : ` data-site="${escape(options.siteKey)}"`}${attributes}></script>`;
  const stub =
    options.stubCalls === undefined
      ? ''
      : `<script>window.glimpse = window.glimpse || function(){(glimpse.q = glimpse.q || []).push(arguments)};${options.stubCalls}</script>`;
  const headers: Record<string, string> = { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' };
  if (options.strictCsp) headers['content-security-policy'] = `script-src ${options.collector}`;
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Page ${escape(path)}</title>${stub}${tag}${options.twice ? tag : ''}</head><body><h1>${escape(path)}</h1>${options.body ?? ''}</body></html>`;
  return { headers, html };
}

/** Serves `sitePage` for every path; `options()` is read per request, so a test can change the page. */
export async function startTestSite(options: () => PageOptions): Promise<TestSite> {
  const server = http.createServer((req, res) => {
    if (req.url === '/favicon.ico') return void res.writeHead(404).end();
    const { headers, html } = sitePage(new URL(req.url ?? '/', 'http://x').pathname, options());
    res.writeHead(200, headers).end(html);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    foreignOrigin: `http://localhost:${port}`,
    stop: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** An event as the tag sends it (the wire format of POST /collect). */
export interface WireEvent {
  type: string;
  id: string;
  [field: string]: unknown;
}

export interface CollectedPost {
  origin: string | undefined;
  contentType: string | undefined;
  /** `cors` for fetch, `no-cors` for a beacon. */
  secFetchMode: string | undefined;
  body: { site: string; vid?: string; consent?: string; gpc?: boolean; events: WireEvent[] };
  /** The request body as sent, to look for what must never be in it. */
  raw: string;
  at: number;
}

export interface Receiver {
  url: string;
  posts: CollectedPost[];
  /** The answer to the next posts (by default 200 with a fixed vid; status 0 drops the connection); CORS is answered for `allowedOrigin`. */
  answer: (post: CollectedPost) => { status: number; headers?: Record<string, string>; body?: unknown };
  /** What /s/<key>.js passes the tag for a key (the gateway's are the site's settings); unset keys get the defaults. */
  settings: Record<string, Partial<TagSettings>>;
  stop(): Promise<void>;
}

export const RECEIVER_VID = '65f0c0ffee0000000000abcd';

/** A collector standing in for the gateway's /collect (until the real one is wired in): serves the real tag and records every post. */
export async function startReceiver(allowedOrigin: () => string): Promise<Receiver> {
  const receiver: Receiver = {
    url: '',
    posts: [],
    answer: (post) => ({ status: 200, body: { vid: post.body.vid ?? RECEIVER_VID, accepted: post.body.events.length } }),
    settings: {},
    stop: async () => undefined,
  };
  const app = express();
  // Never a kept-alive connection (the tag's own GET included): Chromium silently re-sends a request
  // once when a reused connection drops it, which would count as one more try than the tag made.
  app.use((_req, res, next) => {
    res.set('Connection', 'close');
    next();
  });
  app.use(tagRouter());
  app.get('/s/:file', (req, res) => {
    const key = req.params.file.replace(/\.js$/, '');
    const settings: TagSettings = { site: key, consent: 'implied', forms: false, gpc: true, query: [], ...receiver.settings[key] };
    res.type('application/javascript').send(tagForSite(settings).body);
  });
  app.post('/collect', express.text({ type: () => true }), (req, res) => {
    const post: CollectedPost = {
      origin: req.get('origin'),
      contentType: req.get('content-type'),
      secFetchMode: req.get('sec-fetch-mode'),
      body: JSON.parse(req.body as string),
      raw: req.body as string,
      at: Date.now(),
    };
    receiver.posts.push(post);
    // As the gateway answers its sites: Retry-After is not a CORS-safelisted header, so it is exposed.
    if (post.origin === allowedOrigin())
      res.set({
        'Access-Control-Allow-Origin': post.origin,
        'Access-Control-Allow-Credentials': 'true',
        'Access-Control-Expose-Headers': 'Retry-After',
        Vary: 'Origin',
      });
    const { status, headers = {}, body } = receiver.answer(post);
    if (status === 0) return void req.socket.destroy();
    res
      .status(status)
      .set(headers)
      .json(body ?? {});
  });
  const server = http.createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  receiver.stop = () =>
    new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return receiver;
}

/** Every event the receiver got, in order, with the request's origin. */
export const receivedEvents = (receiver: Receiver): WireEvent[] =>
  receiver.posts.flatMap((post) => post.body.events.map((event) => ({ ...event, origin: post.origin })));
