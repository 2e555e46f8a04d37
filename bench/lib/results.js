// Writes a suite's summary to bench/results/<suite>-<timestamp>.json (not meant to be committed).
'use strict';
const fs = require('node:fs');
const path = require('node:path');

const RESULTS_DIR = path.join(__dirname, '..', 'results');

function writeResult(suite, summary, date = new Date()) {
  fs.mkdirSync(RESULTS_DIR, { recursive: true });
  const stamp = date.toISOString().replace(/[:.]/g, '-');
  const file = path.join(RESULTS_DIR, `${suite}-${stamp}.json`);
  fs.writeFileSync(file, `${JSON.stringify(summary, null, 2)}\n`);
  return file;
}

module.exports = { writeResult, RESULTS_DIR };
