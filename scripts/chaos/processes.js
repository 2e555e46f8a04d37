// What the chaos suite starts, by pid: a registry written to disk on every change, so that everything
// it started is stopped at the end — and, after a run that was itself killed, at the start of the
// next one (by the recorded pid and only if that pid still runs the recorded command).
// Also the private Postgres cluster and Redis Cluster the suite breaks on purpose.
'use strict';
const fs = require('node:fs');
const net = require('node:net');
const os = require('node:os');
const path = require('node:path');
const { spawn, execFile, execFileSync } = require('node:child_process');
const { promisify } = require('node:util');

const execFileAsync = promisify(execFile);
const { waitFor } = require('../infra/util');
const { createRedisCluster } = require('../infra/redis-cluster');

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
  const save = () =>
    fs.writeFileSync(
      file,
      JSON.stringify(
        [...entries.entries()].map(([name, e]) => ({ name, ...e })),
        null,
        1,
      ),
    );
  return {
    /** Kills what a previous run recorded and left running (same pid, same command line). */
    async reapLeftovers(log) {
      if (!fs.existsSync(file)) return;
      let old = [];
      try {
        old = JSON.parse(fs.readFileSync(file, 'utf8'));
      } catch {
        /* unreadable: nothing to reap */
      }
      for (const e of old) {
        if (isRunning(e.pid) && cmdline(e.pid) === e.cmd) {
          log(`stopping ${e.name} (pid ${e.pid}) left by an earlier run`);
          try {
            process.kill(e.pid, 'SIGKILL');
          } catch {
            /* gone */
          }
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
        try {
          process.kill(e.pid, 'SIGCONT');
          process.kill(e.pid, 'SIGTERM');
        } catch {
          /* gone */
        }
      }
      if (!(await waitFor(() => live.every((e) => !isRunning(e.pid)), graceMs, 200))) {
        for (const e of live)
          if (isRunning(e.pid))
            try {
              process.kill(e.pid, 'SIGKILL');
            } catch {
              /* gone */
            }
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
  const versions = fs.existsSync(root)
    ? fs
        .readdirSync(root)
        .filter((v) => /^\d+$/.test(v))
        .sort((a, b) => Number(a) - Number(b))
    : [];
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
    const children = fs
      .readdirSync('/proc')
      .filter((d) => /^\d+$/.test(d))
      .filter((d) => {
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
      await asOwner(pgCtl, [
        'start',
        '-w',
        '-t',
        '60',
        '-D',
        data,
        '-l',
        path.join(dir, 'server.log'),
        '-o',
        `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200`,
      ]);
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
      for (const pid of pids)
        try {
          process.kill(pid, signal);
        } catch {
          /* gone */
        }
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

/**
 * A private Redis Cluster: six redis-server processes on `ports` (cluster bus on `busPorts`), three
 * masters with a replica each, no persistence, 256mb noeviction, cluster-node-timeout
 * `nodeTimeoutMs` (the machinery of scripts/infra/redis-cluster.js). Every pid goes to the registry
 * once its node answers. Besides the cluster's own controls: stopAll() and startAll() make an outage
 * of every node.
 */
function createPrivateRedisCluster({ dir, ports, busPorts, registry, nodeTimeoutMs, log = () => {} }) {
  fs.rmSync(dir, { recursive: true, force: true }); // a fresh cluster every run
  const cluster = createRedisCluster({
    dir,
    ports,
    busPorts,
    nodeTimeoutMs,
    detached: false,
    onSpawn: (name, pid) => registry.record(name, pid),
    log,
    label: 'redis-cluster',
  });
  return {
    ...cluster,
    /** Forms the cluster; resolves once every node says cluster_state:ok with all slots served. */
    async start() {
      await cluster.ensure({ healTimeoutMs: 60_000 });
    },
    /** SIGTERM to every node (by recorded pid); with no persistence, every key is gone. */
    async stopAll() {
      const pids = await cluster.stop();
      for (const port of ports) registry.forget(`redis-${port}`);
      return pids;
    },
    /** Starts every node again on its port with its nodes.conf; resolves once the cluster is healthy. */
    async startAll(timeoutMs = 60_000) {
      await Promise.all(cluster.nodes.map((a) => cluster.startNode(a)));
      await cluster.waitHealthy(timeoutMs);
    },
  };
}

module.exports = { createRegistry, startNodeService, createPrivatePostgres, createPrivateRedisCluster, freePorts, isRunning };
