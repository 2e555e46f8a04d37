#!/usr/bin/env node
// npm test: brings up the real infrastructure, builds (child-process tests run dist/), then runs
// the whole jest suite serially (one broker, one database) and prints a one-line total.
'use strict';
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { ROOT, run, build } = require('./lib.js');
const { describeRuntime, checkRuntime } = require('./runtime.js');

const HELP = `Usage: npm test [-- <jest args>]

Starts Kafka/Postgres/Redis and the tests' Redis Cluster (six redis-server processes on
127.0.0.1:7001-7006) if needed (scripts/infra/up.js), installs Debian's chromium for the
console's browser tests if it is missing (scripts/infra/chromium.js), builds the workspace, then runs
every unit and integration test with jest (--runInBand). Extra arguments go to jest, e.g.
  npm test -- services/gateway          only the tests under that path
  npm test -- --selectProjects unit     only the unit tests (no infrastructure needed)`;

async function main() {
  const args = process.argv.slice(2);
  if (args.includes('--help') || args.includes('-h')) {
    console.log(HELP);
    return 0;
  }
  // Node 24: npm puts node_modules/.bin/node (package.json optionalDependencies) first on PATH.
  console.log(describeRuntime());
  checkRuntime();
  // The unit tests alone need no browser (nor infrastructure, but up() is quick when it is running).
  const unitOnly = args[args.indexOf('--selectProjects') + 1] === 'unit';
  await Promise.all([
    require('./infra/up.js').up({ redisCluster: !unitOnly }),
    unitOnly ? undefined : require('./infra/chromium.js').ensureChromium(require('./infra/env.js').readEnv().chromiumPath),
  ]);
  await build();
  const results = path.join(os.tmpdir(), `glimpse-jest-${process.pid}.json`);
  // jest on this same node (not whichever `node` its bin script's shebang would find on PATH).
  // One process runs every file in turn and its heap grows with them: the default limit (about
  // 4 GB) was reached 845 s into a run on Node 24 (a fresh-clone CI, 2026-11-26), so it gets 12 GB.
  const code = await run(process.execPath, ['--max-old-space-size=12288', path.join(ROOT, 'node_modules', 'jest', 'bin', 'jest.js'), '--runInBand', '--json', `--outputFile=${results}`, ...args]);
  if (fs.existsSync(results)) {
    const r = JSON.parse(fs.readFileSync(results, 'utf8'));
    fs.rmSync(results, { force: true });
    console.log(`\ntests: ${r.numPassedTests} passed, ${r.numFailedTests} failed, ${r.numPendingTests} skipped (node ${process.version})`);
    if (r.numTotalTests === 0) {
      console.error('no tests ran');
      return 1;
    }
  }
  return code;
}

main().then(
  (code) => process.exit(code),
  (err) => {
    console.error(`npm test: ${err.message}`);
    process.exit(1);
  },
);
