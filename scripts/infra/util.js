// Tiny helpers shared by the local-infra scripts (progress logging to stderr, waiting, log tails).
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const { spawn } = require('node:child_process');
const { REPO_ROOT } = require('./env');

const log = (msg) => process.stderr.write(`${msg}\n`);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const secs = (t0) => `${((Date.now() - t0) / 1000).toFixed(1)} s`;
/** A path for messages: repo-relative when inside the repo. */
const shortPath = (p) => (p.startsWith(REPO_ROOT + path.sep) ? path.relative(REPO_ROOT, p) : p);

/** Polls `check()` (sync or async) every `everyMs` until it returns truthy; false on timeout. */
async function waitFor(check, timeoutMs, everyMs = 250) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) return true;
    if (Date.now() >= deadline) return false;
    await sleep(everyMs);
  }
}

/** Last `lines` lines of a text file ('' if it does not exist). */
function tailFile(file, lines = 30) {
  try {
    return fs.readFileSync(file, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '';
  }
}

/** Runs a command without blocking the event loop; resolves { status, output } (stdout+stderr), rejects if it cannot start. */
function run(cmd, args, { env = undefined } = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'], ...(env ? { env } : {}) });
    let output = '';
    child.stdout.on('data', (d) => {
      output += d;
    });
    child.stderr.on('data', (d) => {
      output += d;
    });
    child.on('error', reject);
    child.on('close', (status) => resolve({ status, output: output.trim() }));
  });
}

module.exports = { log, sleep, secs, shortPath, waitFor, tailFile, run };
