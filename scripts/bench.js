#!/usr/bin/env node
// Benchmark dispatcher: `node scripts/bench.js <suite> [options]` runs bench/<suite>.js. A suite is a
// CommonJS module exporting { description, help, run(argv) }; run resolves to the process exit code.
'use strict';
const fs = require('node:fs');
const path = require('node:path');

const BENCH_DIR = path.join(__dirname, '..', 'bench');
const SUITE_NAME = /^[a-z][a-z0-9-]*$/;

function listSuites() {
  return fs
    .readdirSync(BENCH_DIR, { withFileTypes: true })
    .filter((e) => e.isFile() && e.name.endsWith('.js'))
    .map((e) => e.name.slice(0, -3))
    .filter((name) => SUITE_NAME.test(name))
    .sort();
}

function loadSuite(name) {
  const suite = require(path.join(BENCH_DIR, `${name}.js`));
  if (typeof suite.run !== 'function') throw new Error(`bench/${name}.js does not export run(argv)`);
  return suite;
}

function usage() {
  const lines = listSuites().map((name) => {
    let description;
    try {
      description = loadSuite(name).description || '';
    } catch (err) {
      description = `(cannot load: ${err.message})`;
    }
    return `  ${name.padEnd(12)} ${description}`;
  });
  return [
    'Usage: node scripts/bench.js <suite> [suite options]',
    '       node scripts/bench.js <suite> --help',
    '',
    'Runs one benchmark suite from bench/<suite>.js against the built services on this machine',
    '(loopback only). Results are printed and written to bench/results/<suite>-<timestamp>.json.',
    '',
    'Suites:',
    ...(lines.length ? lines : ['  (none found in bench/)']),
  ].join('\n');
}

async function main(argv) {
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === '-h') {
    console.log(usage());
    return name ? 0 : 2;
  }
  if (!SUITE_NAME.test(name) || !listSuites().includes(name)) {
    console.error(`bench: unknown suite "${name}"\n\n${usage()}`);
    return 2;
  }
  const suite = loadSuite(name);
  if (rest.includes('--help') || rest.includes('-h')) {
    console.log(suite.help || suite.description || `bench/${name}.js has no help`);
    return 0;
  }
  return suite.run(rest);
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = typeof code === 'number' ? code : 0;
  },
  (err) => {
    console.error(`bench: ${err && err.stack ? err.stack : err}`);
    process.exitCode = 1;
  },
);
