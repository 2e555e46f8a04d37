// Child processes for a benchmark: free loopback ports, start with a log tail kept for diagnosis,
// wait for readiness, and stop with SIGTERM checking the exit code (a graceful-shutdown check too).
'use strict';
const { spawn } = require('node:child_process');
const net = require('node:net');
const path = require('node:path');

const REPO_ROOT = path.join(__dirname, '..', '..');
const LOOPBACK = '127.0.0.1';
const TAIL_LINES = 40;

function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, LOOPBACK, () => {
      const { port } = /** @type {import('node:net').AddressInfo} */ (server.address());
      server.close(() => resolve(port));
    });
  });
}

/**
 * Starts `node [nodeArgs] script` from the repository root. The child's output is not shown (it
 * would interleave with the report) but its last lines are kept: `tail()` returns them.
 */
function startChild({ name, script, env = {}, nodeArgs = [] }) {
  const lines = [];
  const keep = (chunk) => {
    for (const line of String(chunk).split('\n')) {
      if (!line) continue;
      lines.push(line);
      if (lines.length > TAIL_LINES) lines.shift();
    }
  };
  const child = spawn(process.execPath, [...nodeArgs, script], {
    cwd: REPO_ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  const exited = new Promise((resolve) => {
    child.on('exit', (code, signal) => resolve({ code, signal }));
    child.on('error', (err) => {
      keep(`spawn failed: ${err.message}`);
      resolve({ code: null, signal: null, error: err });
    });
  });
  let exit;
  void exited.then((e) => {
    exit = e;
  });
  return {
    name,
    pid: child.pid,
    exited,
    hasExited: () => exit !== undefined,
    tail: () => lines.join('\n'),
    kill: (signal) => {
      if (exit === undefined) child.kill(signal);
    },
  };
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `url` until it answers 200; fails early if the child exits. */
async function waitReady(child, url, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  let last = 'no answer';
  while (Date.now() < deadline) {
    if (child.hasExited()) throw new Error(`${child.name} exited before it was ready:\n${child.tail()}`);
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(2000) });
      const text = await res.text();
      if (res.status === 200) return;
      last = `${res.status} ${text}`;
    } catch (err) {
      last = err.message;
    }
    await sleep(200);
  }
  throw new Error(`${child.name} not ready at ${url} after ${timeoutMs} ms (last: ${last}):\n${child.tail()}`);
}

/** SIGTERM, then wait; SIGKILL after `timeoutMs`. Resolves { code, signal, graceful }. */
async function stopChild(child, timeoutMs = 20_000) {
  if (child.hasExited()) {
    const e = await child.exited;
    return { ...e, graceful: false, note: 'had already exited' };
  }
  child.kill('SIGTERM');
  let timer;
  const timedOut = new Promise((resolve) => {
    timer = setTimeout(() => resolve('timeout'), timeoutMs);
  });
  const outcome = await Promise.race([child.exited, timedOut]);
  clearTimeout(timer);
  if (outcome === 'timeout') {
    child.kill('SIGKILL');
    const e = await child.exited;
    return { ...e, graceful: false, note: `did not exit within ${timeoutMs} ms of SIGTERM; killed` };
  }
  return { ...outcome, graceful: outcome.code === 0 };
}

module.exports = { freePort, startChild, waitReady, stopChild, sleep, LOOPBACK, REPO_ROOT };
