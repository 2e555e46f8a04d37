#!/usr/bin/env node
// The first thing `npm start` and `npm test` do, so that a fresh clone needs only those two
// commands: when node_modules is absent or was installed from another package-lock.json, run
// `npm ci` (exactly the locked dependencies), then, when this process is not the project's Node
// (npm found the machine's node because node_modules/.bin/node did not exist yet), run the same
// script again on node_modules/.bin/node. Node built-ins only: nothing else is installed yet.
//
// "Installed from this lockfile" is a stamp: scripts/postinstall.js (which npm runs after every
// `npm ci` and `npm install`) writes the lockfile's sha256 to node_modules/.glimpse-lockfile.
'use strict';
const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');
const { spawnSync, spawn } = require('node:child_process');
const { REQUIRED_MAJOR } = require('./runtime.js');

const ROOT = path.resolve(__dirname, '..');
const LOCKFILE = path.join(ROOT, 'package-lock.json');
const STAMP = path.join(ROOT, 'node_modules', '.glimpse-lockfile');
const PROJECT_NODE = path.join(ROOT, 'node_modules', '.bin', 'node');

const HELP = `Usage: node scripts/ensure-install.js [--check]

Runs \`npm ci\` when node_modules is missing or was installed from another package-lock.json
(npm start and npm test call this first, so a fresh clone needs nothing before them).
  --check   only say whether an install is needed (exit 1 when it is)`;

function lockfileHash() {
  return crypto.createHash('sha256').update(fs.readFileSync(LOCKFILE)).digest('hex');
}

/** Records that node_modules now holds this lockfile's dependencies (scripts/postinstall.js). */
function writeStamp() {
  fs.writeFileSync(STAMP, `${lockfileHash()}\n`);
}

/** Why node_modules needs an install, or undefined when it is current. */
function installNeeded() {
  if (!fs.existsSync(path.join(ROOT, 'node_modules'))) return 'node_modules is missing';
  if (!fs.existsSync(STAMP)) return 'node_modules was not installed by npm ci/npm install here (no stamp)';
  if (fs.readFileSync(STAMP, 'utf8').trim() !== lockfileHash()) return 'package-lock.json changed since the last install';
  return undefined;
}

const LOCK = path.join(ROOT, '.install.lock');

/** Whether a process with this pid is alive. */
function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return /** @type {NodeJS.ErrnoException} */ (err).code === 'EPERM';
  }
}

/**
 * Takes the install lock (a file holding our pid), so that two `npm test`s started together do
 * not run `npm ci` over each other; waits while a live process holds it, takes over a dead one's.
 */
function takeInstallLock() {
  for (;;) {
    try {
      fs.writeFileSync(LOCK, String(process.pid), { flag: 'wx' });
      return;
    } catch {
      const holder = Number(fs.readFileSync(LOCK, 'utf8').trim());
      if (!alive(holder)) fs.rmSync(LOCK, { force: true });
      else Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1000);
    }
  }
}

/** Runs `npm ci` when needed; throws when it fails. */
function ensureInstalled() {
  if (!installNeeded()) return false;
  takeInstallLock();
  try {
    return installUnderLock();
  } finally {
    fs.rmSync(LOCK, { force: true });
  }
}

function installUnderLock() {
  // Another process may have installed while we waited for the lock.
  const why = installNeeded();
  if (!why) return false;
  console.error(`${why}: running npm ci (the locked dependencies, Node ${REQUIRED_MAJOR} among them; a minute or two)`);
  // npm_execpath is the npm that started this script; fall back to npm on PATH.
  const npmCli = process.env.npm_execpath;
  const [cmd, args] =
    npmCli && npmCli.endsWith('.js') ? [process.execPath, [npmCli, 'ci', '--no-audit', '--no-fund']] : ['npm', ['ci', '--no-audit', '--no-fund']];
  const r = spawnSync(cmd, args, { cwd: ROOT, stdio: 'inherit' });
  if (r.status !== 0) throw new Error(`npm ci failed (exit ${r.status ?? r.signal}); run it yourself to see why`);
  return true;
}

/**
 * Makes sure the dependencies are installed and that the calling script runs on the project's
 * Node. Returns true when the caller may go on in this process; otherwise it has started the
 * script again on node_modules/.bin/node and this process exits with that one's code.
 */
function ensureInstalledAndOnProjectNode() {
  ensureInstalled();
  const major = Number(process.versions.node.split('.')[0]);
  if (major === REQUIRED_MAJOR || !fs.existsSync(PROJECT_NODE)) return true;
  // The machine's node started us (node_modules/.bin was empty when npm resolved `node`). npm has
  // already put node_modules/.bin first on PATH, so the children of the re-run find Node 24 too.
  const child = spawn(PROJECT_NODE, [...process.execArgv, process.argv[1], ...process.argv.slice(2)], { stdio: 'inherit' });
  for (const signal of /** @type {const} */ (['SIGINT', 'SIGTERM', 'SIGHUP'])) process.on(signal, () => child.kill(signal));
  child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
  return false;
}

module.exports = { ensureInstalled, ensureInstalledAndOnProjectNode, installNeeded, writeStamp };

if (require.main === module) {
  const args = process.argv.slice(2);
  if (args.includes('--help') || args.includes('-h')) {
    console.log(HELP);
    process.exit(0);
  }
  if (args.includes('--check')) {
    const why = installNeeded();
    console.log(why ? `install needed: ${why}` : 'node_modules is current');
    process.exit(why ? 1 : 0);
  }
  try {
    ensureInstalled();
  } catch (err) {
    console.error(err instanceof Error ? err.message : String(err));
    process.exit(1);
  }
}
