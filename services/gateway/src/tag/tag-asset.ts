// The site tag as served: the minified body, its gzip, a strong ETag and the SRI hash of the body.
// The built tag is a template: its GLIMPSE_SETTINGS placeholder becomes nothing for /g.js (computed
// once per process) or a site's settings for /s/<key>.js (tagForSite).
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { minifyTag } from './minify-tag.js';

/** dist/tag/g.js once built; absent under src, where the source is minified at first use. */
export const BUILT_TAG = path.join(__dirname, 'g.js');
/** What the minified tag passes to itself: replaced by the settings (or nothing) before it is served. */
export const SETTINGS_PLACEHOLDER = '(GLIMPSE_SETTINGS)';

export interface TagAsset {
  body: Buffer;
  gzipped?: Buffer;
  /** Strong: the quoted base64url SHA-256 of the body. */
  etag: string;
  /** Subresource integrity of the exact body served (`sha384-…`), for the install snippet. */
  integrity: string;
}

/** What the per-site script passes to the tag; the tag reads these names. */
export interface TagSettings {
  site: string;
  consent: 'implied' | 'required';
  forms: boolean;
  gpc: boolean;
  query: string[];
}

let template: string | undefined;
let cached: TagAsset | undefined;

function tagTemplate(): string {
  if (template === undefined) {
    const text = fs.existsSync(BUILT_TAG) ? fs.readFileSync(BUILT_TAG, 'utf8') : minifyTag();
    if (text.indexOf(SETTINGS_PLACEHOLDER) !== text.lastIndexOf(SETTINGS_PLACEHOLDER) || !text.endsWith(`${SETTINGS_PLACEHOLDER};`))
      throw new Error('the minified site tag must end by passing GLIMPSE_SETTINGS once');
    template = text;
  }
  return template;
}

/** The tag with these settings passed in (undefined: none, as /g.js). */
export function tagSource(settings?: TagSettings): string {
  const text = tagTemplate();
  // Only the call's argument changes: JSON is a JavaScript expression.
  return `${text.slice(0, -SETTINGS_PLACEHOLDER.length - 1)}(${settings ? JSON.stringify(settings) : ''});`;
}

export function tagAsset(): TagAsset {
  return (cached ??= describeTag(Buffer.from(tagSource(), 'utf8')));
}

/** A site's script: the tag with its settings, described afresh (its ETag changes with them). */
export function tagForSite(settings: TagSettings): TagAsset {
  return describeTag(Buffer.from(tagSource(settings), 'utf8'));
}

export function describeTag(body: Buffer): TagAsset {
  const gzipped = gzipSync(body, { level: 9 });
  return {
    body,
    gzipped: gzipped.length < body.length ? gzipped : undefined,
    etag: `"${createHash('sha256').update(body).digest('base64url')}"`,
    integrity: `sha384-${createHash('sha384').update(body).digest('base64')}`,
  };
}
