// The one way the site tag is minified: at build time into dist (build-tag.ts), and at first use
// where no build exists (tests run the sources).
import fs from 'node:fs';
import path from 'node:path';

/** The tag's source, beside this file under src (dist has only the built copy). */
export const TAG_SOURCE = path.join(__dirname, 'g.src.js');

export function minifyTag(source: string = fs.readFileSync(TAG_SOURCE, 'utf8')): string {
  // Loaded here only: terser is a build tool, not installed in the image.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { minify_sync } = require('terser') as typeof import('terser');
  const { code } = minify_sync(source, {
    ecma: 2017,
    compress: { passes: 2 },
    mangle: true,
    format: { comments: false },
  });
  if (!code) throw new Error('terser produced no code for the site tag');
  return code;
}
