// The site tag as served: the minified body, its gzip, a strong ETag and the SRI hash of the body,
// computed once per process.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { minifyTag } from './minify-tag.js';

/** dist/tag/g.js once built; absent under src, where the source is minified at first use. */
export const BUILT_TAG = path.join(__dirname, 'g.js');

export interface TagAsset {
  body: Buffer;
  gzipped?: Buffer;
  /** Strong: the quoted base64url SHA-256 of the body. */
  etag: string;
  /** Subresource integrity of the exact body served (`sha384-…`), for the install snippet. */
  integrity: string;
}

let cached: TagAsset | undefined;

export function tagAsset(): TagAsset {
  return (cached ??= describeTag(readTag()));
}

function readTag(): Buffer {
  if (fs.existsSync(BUILT_TAG)) return fs.readFileSync(BUILT_TAG);
  return Buffer.from(minifyTag(), 'utf8');
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
