import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import express from 'express';
import { gunzipSync } from 'node:zlib';
import { createSiteCache } from '../data/site-cache';
import type { CollectSite } from '../data/site-repository';
import { tagAsset } from './tag-asset';
import { siteScriptRouter, tagRouter } from './tag-route';

const KEY = 'glp_' + 'r'.repeat(32);
const SITE = { captureForms: false, consent: 'required', honorGpc: true, queryKeys: ['page'] } as CollectSite;
let server: Server;
let base: string;
let url: string;

beforeAll(async () => {
  const app = express()
    .use(tagRouter())
    .use(
      siteScriptRouter({
        sites: createSiteCache({ load: async (key) => (key === KEY ? SITE : null), ttlMs: 60_000, negativeTtlMs: 60_000, staleIfErrorMs: 0, maxEntries: 10 }),
      }),
    );
  server = await new Promise<Server>((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  url = `${base}/g.js`;
});
afterAll(() => new Promise((resolve) => server.close(resolve)));

// undici's fetch decodes gzip itself; the raw bytes are read through node:http's get.
async function raw(
  headers: Record<string, string>,
  path?: string,
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }> {
  const http = await import('node:http');
  return new Promise((resolve, reject) => {
    http
      .get(path ? `${base}${path}` : url, { headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
      })
      .on('error', reject);
  });
}

describe('GET /g.js', () => {
  it('when requested by any site, then the tag comes cacheable, loadable cross-origin and with a strong ETag', async () => {
    const answer = await raw({});
    expect(answer.status).toBe(200);
    expect(answer.headers['content-type']).toBe('application/javascript; charset=utf-8');
    expect(answer.headers['cache-control']).toBe('public, max-age=300');
    expect(answer.headers['access-control-allow-origin']).toBe('*');
    expect(answer.headers['cross-origin-resource-policy']).toBe('cross-origin');
    expect(answer.headers.etag).toBe(tagAsset().etag);
    expect(answer.headers.etag).toMatch(/^"[A-Za-z0-9_-]{43}"$/);
    expect(answer.headers['content-encoding']).toBeUndefined();
    expect(answer.body.equals(tagAsset().body)).toBe(true);
  });

  it('when the browser accepts gzip, then the gzipped bytes of the same body are sent', async () => {
    const answer = await raw({ 'accept-encoding': 'gzip, deflate, br' });
    expect(answer.headers['content-encoding']).toBe('gzip');
    expect(answer.headers.vary).toMatch(/Accept-Encoding/i);
    expect(answer.body.length).toBeLessThanOrEqual(2400);
    expect(gunzipSync(answer.body).equals(tagAsset().body)).toBe(true);
  });

  it('when the browser revalidates with the current ETag, then 304 without a body', async () => {
    const { etag } = tagAsset();
    const answer = await raw({ 'if-none-match': `"other", ${etag}` });
    expect(answer.status).toBe(304);
    expect(answer.body.length).toBe(0);
    expect((await raw({ 'if-none-match': '"stale"' })).status).toBe(200);
  });
});

describe('GET /s/<site key>.js', () => {
  it("when a site's script is asked for, then it is the tag with the site's settings, with the same cache and cross-origin headers as /g.js, revalidated by its ETag", async () => {
    const answer = await raw({}, `/s/${KEY}.js`);
    expect(answer.status).toBe(200);
    expect(answer.headers['cache-control']).toBe('public, max-age=300');
    expect(answer.headers['access-control-allow-origin']).toBe('*');
    expect(answer.headers['cross-origin-resource-policy']).toBe('cross-origin');
    expect(answer.body.toString('utf8')).toMatch(
      new RegExp(`\\(\\{"site":"${KEY}","consent":"required","forms":false,"gpc":true,"query":\\["page"\\]\\}\\);$`),
    );
    const etag = answer.headers.etag as string;
    expect(etag).not.toBe(tagAsset().etag);
    expect((await raw({ 'if-none-match': etag }, `/s/${KEY}.js`)).status).toBe(304);
  });

  it('when the key names no site, or the file is no key, then 404', async () => {
    expect((await raw({}, `/s/glp_${'u'.repeat(32)}.js`)).status).toBe(404);
    expect((await raw({}, `/s/${KEY}`)).status).toBe(404);
  });
});
