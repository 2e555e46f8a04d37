// Writes a suite's summary twice: bench/results/<suite>-<timestamp>.json (every run; not committed)
// and bench/figures/<suite>.json (the latest full run; committed, so docs/benchmarks.md's figures and the
// capacity model (docs/capacity.md) can be traced to a file and move when the code gets faster).
'use strict';
const fs = require('node:fs');
const path = require('node:path');

const RESULTS_DIR = path.join(__dirname, '..', 'results');
const FIGURES_DIR = path.join(__dirname, '..', 'figures');

/** `latest`: also replace bench/figures/<suite>.json (a run with non-default, shortened options should pass false). */
function writeResult(suite, summary, date = new Date(), { latest = true } = {}) {
  fs.mkdirSync(RESULTS_DIR, { recursive: true });
  const stamp = date.toISOString().replace(/[:.]/g, '-');
  const file = path.join(RESULTS_DIR, `${suite}-${stamp}.json`);
  const text = `${JSON.stringify(summary, null, 2)}\n`;
  fs.writeFileSync(file, text);
  if (latest) {
    fs.mkdirSync(FIGURES_DIR, { recursive: true });
    fs.writeFileSync(path.join(FIGURES_DIR, `${suite}.json`), text);
  }
  return file;
}

module.exports = { writeResult, RESULTS_DIR, FIGURES_DIR };
