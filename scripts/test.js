#!/usr/bin/env node
// npm test: brings up the real infrastructure, builds (child-process tests run dist/), then runs
// the whole jest suite in a few workers, each a test lane with a broker and a database of its own
// (scripts/infra/lanes.js), and prints a one-line total.
'use strict';
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { ROOT, run, build } = require('./lib.js');
const { describeRuntime, checkRuntime } = require('./runtime.js');

/**
 * How many jest workers (test lanes) run test files side by side. The integration tests mostly
 * wait (on brokers, timers, child processes): one worker kept this 2-core machine about 27 % busy.
 */
const DEFAULT_LANES = 3;

const HELP = `Usage: npm test [-- <jest args>]

Starts Kafka/Postgres/Redis and the tests' Redis Cluster (six redis-server processes on
127.0.0.1:7001-7006) if needed (scripts/infra/up.js), installs Debian's chromium for the
console's browser tests if it is missing (scripts/infra/chromium.js), builds the workspace, then runs
every unit and integration test with jest in ${DEFAULT_LANES} worker processes (--maxWorkers=N for N, 1 to 6),
each a test lane with its own Kafka broker, test database and Redis database (scripts/infra/lanes.js),
so files in different workers never share a topic, a consumer group or a table. Extra arguments go to jest, e.g.
  npm test -- services/gateway          only the tests under that path
  npm test -- --selectProjects unit     only the unit tests (no infrastructure needed)
  npm test -- --selectProjects chaos    the short chaos run (test/chaos.int.test.ts; npm run test:chaos)
Without --selectProjects it runs the unit and integration projects; the chaos project (4-7 min of
three brokers, replicated services and faults) runs on its own: npm run test:chaos.`;

/** The jest worker is replaced after a test file when its heap is larger than this. */
const WORKER_MEMORY_LIMIT = '1536MB';
const SLOWEST_SHOWN = 12;

/**
 * Prints the slowest test files and the total time in them: what `npm test`'s time goes to.
 * @param {{ name: string, startTime: number, endTime: number }[]} files jest's --json testResults
 */
function printSlowest(files, wallSeconds) {
  const timed = files.map((f) => ({ file: path.relative(ROOT, f.name), s: (f.endTime - f.startTime) / 1000 })).sort((a, b) => b.s - a.s);
  const total = timed.reduce((sum, f) => sum + f.s, 0);
  console.log(`\nslowest test files (of ${timed.length}, ${Math.round(total)} s in test files, ${Math.round(wallSeconds)} s of jest's wall time):`);
  for (const f of timed.slice(0, SLOWEST_SHOWN)) console.log(`  ${f.s.toFixed(1).padStart(6)} s  ${f.file}`);
}

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
  // The chaos project is one test file with a cluster of its own: one worker, no other lanes.
  const chaosOnly = args[args.indexOf('--selectProjects') + 1] === 'chaos' && args.indexOf('--selectProjects') === args.length - 2;
  const workersArg = args.find((a) => /^(--maxWorkers|-w)(=|$)/.test(a));
  const defaultWorkers = chaosOnly ? 1 : DEFAULT_LANES;
  const workers = workersArg ? Number((workersArg.split('=')[1] ?? args[args.indexOf(workersArg) + 1]) || 1) : defaultWorkers;
  await Promise.all([
    // Every lane's broker starts now, side by side with the build (global-setup finds them up).
    require('./infra/up.js').up({ redisCluster: !unitOnly, lanes: unitOnly ? 1 : workers }),
    unitOnly ? undefined : require('./infra/chromium.js').ensureChromium(require('./infra/env.js').readEnv().chromiumPath),
  ]);
  await build();
  const results = path.join(os.tmpdir(), `glimpse-jest-${process.pid}.json`);
  // jest on this same node (not whichever `node` its bin script's shebang would find on PATH), in
  // DEFAULT_LANES worker processes (one test lane each), each replaced once its heap passes
  // WORKER_MEMORY_LIMIT after a file: in a single process the heap grew with every file and reached
  // Node 24's default limit (about 4 GB) 845 s into a fresh-clone run (2026-11-26).
  // Without a --selectProjects of the caller's: unit and integration (the chaos project is `npm run test:chaos`).
  // It goes last: jest reads every word after --selectProjects as a project name, paths included.
  const projects = args.includes('--selectProjects') ? [] : ['--selectProjects', 'unit', 'integration'];
  const jestStart = Date.now();
  const code = await run(process.execPath, [
    path.join(ROOT, 'node_modules', 'jest', 'bin', 'jest.js'),
    ...(workersArg ? [] : [`--maxWorkers=${defaultWorkers}`]),
    `--workerIdleMemoryLimit=${WORKER_MEMORY_LIMIT}`,
    '--json',
    `--outputFile=${results}`,
    ...args,
    ...projects,
  ]);
  if (fs.existsSync(results)) {
    const r = JSON.parse(fs.readFileSync(results, 'utf8'));
    fs.rmSync(results, { force: true });
    printSlowest(r.testResults, (Date.now() - jestStart) / 1000);
    console.log(`\ntests: ${r.numPassedTests} passed, ${r.numFailedTests} failed, ${r.numPendingTests} skipped (node ${process.version})`);
    if (r.numTotalTests === 0) {
      console.error('no tests ran');
      return 1;
    }
  }
  return code;
}

// A fresh clone: npm ci first (node_modules absent or from another lockfile), then on Node 24.
const wantsHelp = process.argv.includes('--help') || process.argv.includes('-h');
if (wantsHelp || require('./ensure-install.js').ensureInstalledAndOnProjectNode())
  main().then(
    (code) => process.exit(code),
    (err) => {
      console.error(`npm test: ${err.message}`);
      process.exit(1);
    },
  );
