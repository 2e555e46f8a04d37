#!/usr/bin/env node
// Copies a directory of static files next to the compiled code (tsc copies only what it compiles):
// `node copy-assets.js <from> <to>`, both relative to the working directory. The target is
// replaced, so a file deleted from the sources does not linger in dist.
'use strict';
const fs = require('node:fs');
const path = require('node:path');

const [from, to] = process.argv.slice(2);
if (!from || !to) {
  console.error('usage: node scripts/copy-assets.js <from-dir> <to-dir>');
  process.exit(2);
}
const source = path.resolve(from);
const target = path.resolve(to);
if (!fs.statSync(source, { throwIfNoEntry: false })?.isDirectory()) {
  console.error(`copy-assets: ${source} is not a directory`);
  process.exit(1);
}
fs.rmSync(target, { recursive: true, force: true });
fs.cpSync(source, target, { recursive: true });
