// Writes the minified site tag next to the compiled gateway: `node dist/tag/build-tag.js` (run by
// the gateway's build after tsc), so the image serves it without terser.
import fs from 'node:fs';
import path from 'node:path';
import { minifyTag } from './minify-tag.js';
import { BUILT_TAG } from './tag-asset.js';

/** dist/tag → src/tag: the source the build minifies. */
const SOURCE = path.join(__dirname, '..', '..', 'src', 'tag', 'g.src.js');

if (require.main === module) {
  fs.writeFileSync(BUILT_TAG, minifyTag(fs.readFileSync(SOURCE, 'utf8')));
}
