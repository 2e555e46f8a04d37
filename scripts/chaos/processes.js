// What the chaos suite starts, by pid: a registry written to disk on every change, so that everything
// it started is stopped at the end — and, after a run that was itself killed, at the start of the
// next one (by the recorded pid and only if that pid still runs the recorded command).
// Also the private Postgres cluster and Redis server the suite breaks on purpose.
'use strict';
const fs = require('node:fs');
const net = require('node:net');
const os = require('node:os');
const path = require('node:path');
const { spawn, execFile, execFileSync } = require('node:child_process');
const { promisify } = require('node:util');

const execFileAsync = promisify(execFile);
const { waitFor } = require('../infra/util');

function cmdline(pid) {
  try {
    return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ').trim();
  } catch {
    return null;
  }
}

/** Alive and not a zombie. */
function isRunning(pid) {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return !'ZX'.includes(stat.slice(stat.lastIndexOf(')') + 2)[0]);
  } catch {
    return false;
  }
}

function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer().once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = /** @type {import('node:net').AddressInfo} */ (server.address());
      server.close(() => resolve(port));
    });
  });
}

/** `n` distinct free loopback ports. */
async function freePorts(n) {
  const ports = new Set();
  while (ports.size < n) ports.add(await freePort());
  return [...ports];
}

function createRegistry(file) {
  const entries = new Map(); // name -> { pid, cmd }
  const save = () => fs.writeFileSync(file, JSON.stringify([...entries.entries()].map(([name, e]) => ({ name, ...e })), null, 1));
  return {
    /** Kills what a previous run recorded and left running (same pid, same command line). */
    async reapLeftovers(log) {
      if (!fs.existsSync(file)) return;
      let old = [];
      try {
        old = JSON.parse(fs.readFileSync(file, 'utf8'));
      } catch { /* unreadable: nothing to reap */ }
      for (const e of old) {
        if (isRunning(e.pid) && cmdline(e.pid) === e.cmd) {
          log(`stopping ${e.name} (pid ${e.pid}) left by an earlier run`);
          try { process.kill(e.pid, 'SIGKILL'); } catch { /* gone */ }
        }
      }
      fs.rmSync(file, { force: true });
    },
    record(name, pid) {
      entries.set(name, { pid, cmd: cmdline(pid) ?? '' });
      save();
    },
    forget(name) {
      entries.delete(name);
      save();
    },
    /** SIGTERM to everything recorded, SIGKILL after `graceMs`; SIGCONT first, in case something was left stopped. */
    async stopAll(graceMs = 10_000) {
      const live = [...entries.values()].filter((e) => isRunning(e.pid) && cmdline(e.pid) === e.cmd);
      for (const e of live) {
        try { process.kill(e.pid, 'SIGCONT'); process.kill(e.pid, 'SIGTERM'); } catch { /* gone */ }
      }
      if (!(await waitFor(() => live.every((e) => !isRunning(e.pid)), graceMs, 200))) {
        for (const e of live) if (isRunning(e.pid)) try { process.kill(e.pid, 'SIGKILL'); } catch { /* gone */ }
        await waitFor(() => live.every((e) => !isRunning(e.pid)), 5000, 100);
      }
      entries.clear();
      fs.rmSync(file, { force: true });
    },
  };
}

/** A Node service from its build, output appended to `logFile`. */
function startNodeService({ name, main, env, logFile, cwd, registry }) {
  const out = fs.openSync(logFile, 'a');
  const child = spawn(process.execPath, [main], { cwd, env, stdio: ['ignore', out, out] });
  fs.closeSync(out);
  child.on('error', () => {});
  registry.record(name, child.pid);
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  return {
    name,
    pid: child.pid,
    child,
    exited,
    running: () => child.exitCode === null && child.signalCode === null,
    /** @param {NodeJS.Signals} [signal] @param {number} [timeoutMs] */
    async stop(signal = 'SIGTERM', timeoutMs = 15_000) {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill(signal);
        const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
        await exited;
        clearTimeout(timer);
      }
      registry.forget(name);
      return exited;
    },
  };
}

function pgBinDir() {
  const root = '/usr/lib/postgresql';
  const versions = fs.existsSync(root) ? fs.readdirSync(root).filter((v) => /^\d+$/.test(v)).sort((a, b) => Number(a) - Number(b)) : [];
  if (versions.length === 0) throw new Error(`no Postgres server binaries under ${root} (apt-get install postgresql)`);
  return path.join(root, versions.at(-1), 'bin');
}

/** A private Postgres cluster (initdb into a temporary dir, pg_ctl on its own port); as root it runs as `postgres`. */
function createPrivatePostgres({ port, registry }) {
  const bin = pgBinDir();
  const asRoot = process.getuid?.() === 0;
  // fsync=off is safe here: the faults kill processes, never the machine, and the OS keeps what was
  // written. synchronous_commit stays on: an immediate shutdown would lose commits otherwise.
  // Asynchronous, so that the load keeps its pace while pg_ctl waits for the server.
  const asOwner = (cmd, args) => execFileAsync(asRoot ? 'runuser' : cmd, asRoot ? ['-u', 'postgres', '--', cmd, ...args] : args);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'glimpse-chaos-pg-'));
  if (asRoot) execFileSync('chown', ['postgres:postgres', dir]);
  const data = path.join(dir, 'data');
  const pgCtl = path.join(bin, 'pg_ctl');
  const postmasterPid = () => {
    try {
      return Number(fs.readFileSync(path.join(data, 'postmaster.pid'), 'utf8').split('\n')[0]) || null;
    } catch {
      return null;
    }
  };
  /** The postmaster and every process it forked (backends, checkpointer, …). */
  const serverPids = () => {
    const root = postmasterPid();
    if (!root) return [];
    const children = fs.readdirSync('/proc').filter((d) => /^\d+$/.test(d)).filter((d) => {
      try {
        const stat = fs.readFileSync(`/proc/${d}/stat`, 'utf8');
        return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === root;
      } catch {
        return false;
      }
    });
    return [root, ...children.map(Number)];
  };
  return {
    port,
    dir,
    url: (db = 'postgres') => `postgresql://postgres@127.0.0.1:${port}/${db}`,
    async init() {
      await asOwner(path.join(bin, 'initdb'), ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync', '-E', 'UTF8']);
    },
    async start() {
      await asOwner(pgCtl, ['start', '-w', '-t', '60', '-D', data, '-l', path.join(dir, 'server.log'), '-o',
        `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200`]);
      registry.record('postgres', postmasterPid());
    },
    /** `immediate`: like a crash (no checkpoint; crash recovery on the next start). */
    async stop(mode = 'fast') {
      await asOwner(pgCtl, ['stop', '-w', '-t', '60', '-D', data, '-m', mode]);
      registry.forget('postgres');
    },
    /** Freezes (SIGSTOP) or thaws (SIGCONT) the postmaster and all its processes: a hung server that still holds its sockets. */
    signalAll(signal) {
      const pids = serverPids();
      for (const pid of pids) try { process.kill(pid, signal); } catch { /* gone */ }
      return pids.length;
    },
    async destroy() {
      try {
        this.signalAll('SIGCONT');
        if (postmasterPid() && isRunning(postmasterPid())) await this.stop('immediate');
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}

/** A private redis-server on its own port, no persistence; stop() and start() again to make an outage. */
function createPrivateRedis({ port, dir, registry }) {
  let proc = null;
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    async start() {
      fs.mkdirSync(dir, { recursive: true });
      const out = fs.openSync(path.join(dir, 'redis.log'), 'a');
      const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir], { stdio: ['ignore', out, out] });
      fs.closeSync(out);
      child.on('error', () => {});
      proc = child;
      registry.record('redis', child.pid);
      const ok = await waitFor(async () => child.exitCode === null && (await ping(port)), 10_000, 100);
      if (!ok) throw new Error(`redis-server on port ${port} did not answer PING (see ${dir}/redis.log)`);
    },
    async stop(signal = 'SIGTERM') {
      if (!proc || proc.exitCode !== null || proc.signalCode !== null) return;
      const done = new Promise((r) => proc.once('exit', r));
      proc.kill(signal);
      await done;
      registry.forget('redis');
    },
  };
}

function ping(port) {
  return new Promise((resolve) => {
    const sock = net.createConnection({ host: '127.0.0.1', port });
    let buf = '';
    const done = (ok) => { sock.destroy(); resolve(ok); };
    sock.setTimeout(1000, () => done(false));
    sock.on('error', () => done(false));
    sock.on('connect', () => sock.write('PING\r\n'));
    sock.on('data', (d) => { buf += d; if (buf.includes('\r\n')) done(buf.startsWith('+PONG')); });
  });
}

module.exports = { createRegistry, startNodeService, createPrivatePostgres, createPrivateRedis, freePorts, isRunning };
