import { createHash } from 'node:crypto';
import { gunzipSync, gzipSync } from 'node:zlib';
import { tagAsset, tagForSite, tagSource, type TagSettings } from './tag-asset';

describe('the site tag as served', () => {
  it('when gzipped at level 9 as served, then it weighs at most 2,400 bytes', () => {
    const { body, gzipped } = tagAsset();
    expect(gzipped).toBeDefined();
    expect(gunzipSync(gzipped!).equals(body)).toBe(true);
    expect(gzipped!.length).toBe(gzipSync(body, { level: 9 }).length);
    expect(gzipped!.length).toBeLessThanOrEqual(2400);
  });

  it('when described, then its ETag is the strong quoted SHA-256 and its integrity the SHA-384 of the exact body', () => {
    const { body, etag, integrity } = tagAsset();
    expect(etag).toBe(`"${createHash('sha256').update(body).digest('base64url')}"`);
    expect(integrity).toBe(`sha384-${createHash('sha384').update(body).digest('base64')}`);
  });

  it('when minified, then no comment or source-only text is left and it is one statement', () => {
    const source = tagAsset().body.toString('utf8');
    expect(source).not.toMatch(/\/\*|\/\/ /);
    expect(source).toMatch(/^!function\(\w+\)\{/);
    expect(source).toMatch(/\}\(\);$/);
    expect(() => new Function(source)).not.toThrow();
  });

  it("when made for a site, then it is the same tag passing the site's settings to itself, with its own ETag", () => {
    const settings: TagSettings = { site: 'glp_' + 'k'.repeat(32), consent: 'required', forms: false, gpc: true, query: ['page'] };
    const site = tagForSite(settings);
    const source = site.body.toString('utf8');
    expect(source).toBe(tagSource().replace(/\(\);$/, `(${JSON.stringify(settings)});`));
    expect(() => new Function(source)).not.toThrow();
    expect(site.etag).not.toBe(tagAsset().etag);
    expect(tagForSite({ ...settings, consent: 'implied' }).etag).not.toBe(site.etag);
  });
});
