#!/usr/bin/env node
// Copies a directory of static files next to the compiled code (tsc copies only what it compiles):
// `node copy-assets.js <from> <to> [--skip <name>]...`, both relative to the working directory. The
// target is replaced, so a file deleted from the sources does not linger in dist. --skip leaves out
// the entries of <from> with that name (the console's app/: TypeScript sources, bundled instead).
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const { parseArgs } = require('node:util');

const USAGE = 'usage: node scripts/copy-assets.js <from-dir> <to-dir> [--skip <name>]...';
let parsed;
try {
  parsed = parseArgs({ options: { skip: { type: 'string', multiple: true, default: [] } }, allowPositionals: true });
} catch (err) {
  console.error(`${err.message}\n${USAGE}`);
  process.exit(2);
}
const [from, to, ...extra] = parsed.positionals;
if (!from || !to || extra.length) {
  console.error(USAGE);
  process.exit(2);
}
const skipped = new Set(parsed.values.skip);
const source = path.resolve(from);
const target = path.resolve(to);
if (!fs.statSync(source, { throwIfNoEntry: false })?.isDirectory()) {
  console.error(`copy-assets: ${source} is not a directory`);
  process.exit(1);
}
fs.rmSync(target, { recursive: true, force: true });
// Only the top level's entries are matched against --skip.
fs.cpSync(source, target, { recursive: true, filter: (file) => path.dirname(file) !== source || !skipped.has(path.basename(file)) });
