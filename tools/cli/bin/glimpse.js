#!/usr/bin/env node
// The operator CLI. It runs the compiled code: `npm start` or `npm run build` produces it.
const path = require('node:path');
const fs = require('node:fs');

const main = path.join(__dirname, '..', 'dist', 'main.js');
if (!fs.existsSync(main)) {
  process.stderr.write('glimpse: not built yet; run `npm run build` (npm start and npm test build too)\n');
  process.exit(1);
}
require(main).main();
