// Runs a Redis Cluster of redis-server processes on loopback (config, data and pid file per node under
// one directory; no RDB, no AOF), forms it with `redis-cli --cluster create`, and answers what tests and
// the chaos suite ask of it: is it healthy, which master owns a slot, kill a node by its recorded pid,
// start it again on the same port and nodes.conf, wait for a replica's promotion.
// Used by up.js/down.js (the shared test cluster on 7001-7006), test/support/redis-cluster.ts (private
// clusters of destructive tests) and scripts/chaos (the chaos stack's cluster).
'use strict';
const fs = require('node:fs');
const net = require('node:net');
const path = require('node:path');
const { spawn } = require('node:child_process');
const { readEnv, isLocalHost } = require('./env');
const { log: defaultLog, secs, shortPath, waitFor, tailFile, run } = require('./util');

const SLOTS = 16384;
/** What every node runs with (the parts a caller may change are options of createRedisCluster). */
const NODE_DEFAULTS = { nodeTimeoutMs: 2000, maxmemory: '256mb', maxmemoryPolicy: 'noeviction' };

// ---- a minimal RESP client (one connection per call; enough for admin commands)

class ReplyError extends Error {}

/** Parses one RESP2/RESP3-lite reply from `buf` at `i`: [value, next] or null when incomplete. */
function parseReply(buf, i = 0) {
  if (i >= buf.length) return null;
  const nl = buf.indexOf('\r\n', i);
  if (nl < 0) return null;
  const type = String.fromCharCode(buf[i]);
  const line = buf.toString('utf8', i + 1, nl);
  const next = nl + 2;
  switch (type) {
    case '+':
      return [line, next];
    case '-':
      return [new ReplyError(line), next];
    case ':':
      return [Number(line), next];
    case '$': {
      const n = Number(line);
      if (n < 0) return [null, next];
      if (buf.length < next + n + 2) return null;
      return [buf.toString('utf8', next, next + n), next + n + 2];
    }
    case '*': {
      const n = Number(line);
      if (n < 0) return [null, next];
      const items = [];
      let j = next;
      for (let k = 0; k < n; k++) {
        const r = parseReply(buf, j);
        if (!r) return null;
        items.push(r[0]);
        j = r[1];
      }
      return [items, j];
    }
    default:
      throw new Error(`unexpected RESP type ${JSON.stringify(type)}`);
  }
}

function encode(args) {
  const parts = [Buffer.from(`*${args.length}\r\n`)];
  for (const a of args) {
    const b = Buffer.from(String(a));
    parts.push(Buffer.from(`$${b.length}\r\n`), b, Buffer.from('\r\n'));
  }
  return Buffer.concat(parts);
}

function parseAddr(addr) {
  const i = String(addr).lastIndexOf(':');
  return { host: addr.slice(0, i).replace(/^\[|\]$/g, '') || '127.0.0.1', port: Number(addr.slice(i + 1)) };
}

/** @typedef {{ password?: string, timeoutMs?: number }} ConnOptions */

/**
 * Sends `cmds` over one connection to `addr` (AUTH first when `password`); resolves their replies, rejects on an error reply or no answer.
 * @param {string} addr @param {(string | number)[][]} cmds @param {ConnOptions} [options] @returns {Promise<any[]>}
 */
function commands(addr, cmds, { password, timeoutMs = 2000 } = {}) {
  const { host, port } = parseAddr(addr);
  const all = [...(password ? [['AUTH', password]] : []), ...cmds];
  return new Promise((resolve, reject) => {
    let buf = Buffer.alloc(0);
    const sock = net.createConnection({ host, port });
    const fail = (err) => {
      sock.destroy();
      reject(err);
    };
    sock.setTimeout(timeoutMs, () => fail(new Error(`${addr}: no answer to ${cmds.map((c) => c[0]).join(', ')} within ${timeoutMs} ms`)));
    sock.on('error', (/** @type {NodeJS.ErrnoException} */ err) => fail(new Error(`${addr}: ${err.code ?? err.message}`)));
    sock.on('connect', () => sock.write(Buffer.concat(all.map(encode))));
    sock.on('data', (d) => {
      buf = Buffer.concat([buf, d]);
      const replies = [];
      let i = 0;
      for (let k = 0; k < all.length; k++) {
        const r = parseReply(buf, i);
        if (!r) return;
        replies.push(r[0]);
        i = r[1];
      }
      sock.destroy();
      const bad = replies.findIndex((r) => r instanceof ReplyError);
      if (bad >= 0) reject(new Error(`${addr}: ${all[bad][0]}: ${replies[bad].message}`));
      else resolve(replies.slice(all.length - cmds.length));
    });
  });
}

/** One command to `addr`: its reply. @param {string} addr @param {(string | number)[]} args @param {ConnOptions} [opts] @returns {Promise<any>} */
async function command(addr, args, opts = {}) {
  return (await commands(addr, [args], opts))[0];
}

/** True if a Redis server answers PING on `addr` (+PONG, or -NOAUTH when it wants a password). @param {string} addr @param {ConnOptions} [options] */
async function ping(addr, { password, timeoutMs = 1000 } = {}) {
  try {
    return (await command(addr, ['PING'], { password, timeoutMs })) === 'PONG';
  } catch (err) {
    return /NOAUTH/.test(err.message);
  }
}

/** `INFO`-style "key:value" lines as an object. */
function parseInfo(text) {
  const out = {};
  for (const line of String(text).split(/\r?\n/)) {
    const i = line.indexOf(':');
    if (i > 0 && !line.startsWith('#')) out[line.slice(0, i)] = line.slice(i + 1);
  }
  return out;
}

/** @param {string} addr @param {ConnOptions} [opts] */
async function clusterInfo(addr, opts) {
  return parseInfo(await command(addr, ['CLUSTER', 'INFO'], opts));
}

/**
 * CLUSTER NODES as seen by `addr`: [{ id, addr, flags: Set, master (id|null), linkState, slots: [[from, to]], myself, role, failed }].
 * @param {string} addr @param {ConnOptions} [opts]
 */
async function clusterNodes(addr, opts) {
  const text = await command(addr, ['CLUSTER', 'NODES'], opts);
  return String(text)
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const [id, endpoint, flagText, master, , , epoch, linkState, ...slotParts] = line.split(' ');
      const flags = new Set(flagText.split(','));
      const slots = slotParts
        .filter((s) => !s.startsWith('['))
        .map((s) => {
          const [a, b] = s.split('-').map(Number);
          return [a, b ?? a];
        });
      return {
        id,
        addr: endpoint.split('@')[0].split(',')[0],
        flags,
        master: master === '-' ? null : master,
        configEpoch: Number(epoch),
        linkState,
        slots,
        myself: flags.has('myself'),
        role: flags.has('master') ? 'master' : flags.has('slave') ? 'replica' : 'unknown',
        failed: flags.has('fail') || flags.has('fail?') || flags.has('noaddr') || flags.has('handshake'),
      };
    });
}

const ownsSlot = (node, slot) => node.slots.some(([a, b]) => slot >= a && slot <= b);

// ---- processes

function nodePaths(dir, port) {
  const d = path.join(dir, String(port));
  return { dir: d, conf: path.join(d, 'redis.conf'), pid: path.join(d, 'node.pid'), log: path.join(d, 'redis.log'), nodesConf: path.join(d, 'nodes.conf') };
}

function cmdline(pid) {
  try {
    return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ').trim();
  } catch {
    return null;
  }
}

/** Is `pid` a live (non-zombie) redis-server of this node (its title names the port, or its argv the node's config)? */
function isNodeProcess(pid, port, conf) {
  if (!(pid > 0)) return false;
  if (!fs.existsSync('/proc/self')) {
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  }
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    if ('ZX'.includes(stat.slice(stat.lastIndexOf(')') + 2)[0])) return false;
  } catch {
    return false;
  }
  const cmd = cmdline(pid) ?? '';
  return cmd.startsWith('redis-server') && (cmd.includes(`:${port}`) || cmd.includes(conf));
}

function recordedPid(p, port) {
  const pid = Number.parseInt(fs.existsSync(p.pid) ? fs.readFileSync(p.pid, 'utf8') : '', 10);
  return isNodeProcess(pid, port, p.conf) ? pid : null;
}

function writeNodeConfig(p, { host, port, busPort, password, nodeTimeoutMs, maxmemory, maxmemoryPolicy, requireFullCoverage }) {
  const lines = [
    `port ${port}`,
    `bind ${host}`,
    ...(busPort ? [`cluster-port ${busPort}`] : []),
    `dir ${p.dir}`,
    `logfile ${p.log}`,
    'daemonize no',
    'cluster-enabled yes',
    'cluster-config-file nodes.conf',
    `cluster-node-timeout ${nodeTimeoutMs}`,
    // A slot without a master fails only the keys of that slot; the other masters keep answering.
    `cluster-require-full-coverage ${requireFullCoverage ? 'yes' : 'no'}`,
    // A replica may always take over, however long its link was down (as deploy/k8s's redis.conf).
    'cluster-replica-validity-factor 0',
    'save ""',
    'appendonly no',
    // A replica's full sync starts at once (the default waits 5 s for more replicas to share it).
    'repl-diskless-sync-delay 0',
    `maxmemory ${maxmemory}`,
    `maxmemory-policy ${maxmemoryPolicy}`,
    ...(password ? [`requirepass ${password}`, `masterauth ${password}`] : []),
  ];
  fs.writeFileSync(p.conf, `# Generated by scripts/infra/redis-cluster.js on every start; edit that file instead.\n${lines.join('\n')}\n`, { mode: 0o600 });
}

/**
 * A cluster of redis-server processes, one per port, under `dir/<port>/`. `busPorts` (optional, same
 * length) sets each node's cluster bus port (default port + 10000). `detached`: the processes outlive
 * this one (the shared test cluster); otherwise they are this process's children. `onSpawn(name, pid)`
 * is told every pid once the node answers (the chaos suite's registry).
 * @param {{ dir: string, ports: number[], busPorts?: number[] | null, host?: string, password?: string, replicas?: number,
 *   detached?: boolean, nodeTimeoutMs?: number, maxmemory?: string, maxmemoryPolicy?: string, requireFullCoverage?: boolean,
 *   onSpawn?: (name: string, pid: number) => void, log?: (msg: string) => void, label?: string }} options
 */
function createRedisCluster({
  dir,
  ports,
  busPorts = null,
  host = '127.0.0.1',
  password = undefined,
  replicas = 1,
  detached = false,
  nodeTimeoutMs = NODE_DEFAULTS.nodeTimeoutMs,
  maxmemory = NODE_DEFAULTS.maxmemory,
  maxmemoryPolicy = NODE_DEFAULTS.maxmemoryPolicy,
  requireFullCoverage = false,
  onSpawn = () => {},
  log = defaultLog,
  label = 'redis-cluster',
}) {
  if (ports.length < 3 * (replicas + 1)) throw new Error(`${label}: ${ports.length} ports are too few for 3 masters with ${replicas} replica(s) each`);
  const addrs = ports.map((port) => `${host}:${port}`);
  const opts = { password };
  const portOf = (addr) => {
    const { port } = parseAddr(addr);
    if (!ports.includes(port)) throw new Error(`${label}: ${addr} is not one of its nodes (${addrs.join(', ')})`);
    return port;
  };
  const paths = (port) => nodePaths(dir, port);
  const children = new Map(); // port -> ChildProcess (not detached)

  function pidOf(addr) {
    const port = portOf(addr);
    return recordedPid(paths(port), port);
  }

  function spawnNode(port) {
    const p = paths(port);
    fs.mkdirSync(p.dir, { recursive: true });
    const busPort = busPorts ? busPorts[ports.indexOf(port)] : undefined;
    writeNodeConfig(p, { host, port, busPort, password, nodeTimeoutMs, maxmemory, maxmemoryPolicy, requireFullCoverage });
    fs.appendFileSync(p.log, `\n===== ${new Date().toISOString()} glimpse infra: starting redis-server =====\n`);
    const child = spawn('redis-server', [p.conf], { cwd: p.dir, detached, stdio: 'ignore' });
    if (!child.pid) throw new Error(`${label}: could not start redis-server (is it on PATH?)`);
    child.on('error', () => {});
    if (detached) child.unref();
    else children.set(port, child);
    fs.writeFileSync(p.pid, `${child.pid}\n`);
    return child.pid;
  }

  /** Starts the node of `addr` (same port, config and nodes.conf) unless it runs; resolves when it answers PING. */
  async function startNode(addr, timeoutMs = 15_000) {
    const port = portOf(addr);
    const p = paths(port);
    let pid = recordedPid(p, port);
    if (!pid) {
      if (await ping(addr, opts)) throw new Error(`${label}: a redis-server not started here already answers on ${addr}`);
      pid = spawnNode(port);
    }
    let died = false;
    const up = await waitFor(async () => (died = !isNodeProcess(pid, port, p.conf)) || ping(addr, opts), timeoutMs, 100);
    if (died || !up) {
      throw new Error(
        `${label}: redis-server ${addr} (pid ${pid}) ${died ? 'exited during startup' : `does not answer after ${timeoutMs / 1000} s`}; from ${shortPath(p.log)}:\n${tailFile(p.log, 15)}`,
      );
    }
    onSpawn(`redis-${port}`, pid);
    return pid;
  }

  /** Sends `signal` to the node's recorded pid; with wait, resolves once the process is gone. */
  async function signalNode(addr, signal, { wait = true, timeoutMs = 10_000 } = {}) {
    const port = portOf(addr);
    const p = paths(port);
    const pid = recordedPid(p, port);
    if (!pid) return null;
    process.kill(pid, signal);
    if (signal === 'SIGSTOP' || signal === 'SIGCONT' || !wait) return pid;
    if (!(await waitFor(() => !isNodeProcess(pid, port, p.conf), timeoutMs, 50))) {
      process.kill(pid, 'SIGKILL');
      await waitFor(() => !isNodeProcess(pid, port, p.conf), 5000, 50);
    }
    const child = children.get(port);
    if (child && child.pid === pid) {
      if (child.exitCode === null && child.signalCode === null) await new Promise((r) => child.once('exit', r));
      children.delete(port);
    }
    return pid;
  }

  /** Every node's CLUSTER INFO (null where it does not answer). */
  const infos = () => Promise.all(addrs.map((a) => clusterInfo(a, opts).catch(() => null)));

  /**
   * Healthy: every node answers, says cluster_state:ok with all slots served, knows every node, and
   * the topology is 3 masters with slots and their replicas. Resolves { ok, why }.
   */
  async function health() {
    const all = await infos();
    const down = addrs.filter((_, i) => !all[i]);
    if (down.length) return { ok: false, why: `not answering: ${down.join(', ')}` };
    const bad = addrs.filter(
      (_, i) => all[i].cluster_state !== 'ok' || Number(all[i].cluster_slots_ok) !== SLOTS || Number(all[i].cluster_known_nodes) !== addrs.length,
    );
    if (bad.length) {
      const i = addrs.indexOf(bad[0]);
      return {
        ok: false,
        why: `${bad[0]}: cluster_state ${all[i].cluster_state}, slots ok ${all[i].cluster_slots_ok}, known nodes ${all[i].cluster_known_nodes}`,
      };
    }
    let topo;
    try {
      topo = await topology();
    } catch (err) {
      return { ok: false, why: err.message };
    }
    const masters = ports.length / (replicas + 1);
    if (topo.masters.length !== masters || topo.replicas.length !== ports.length - masters) {
      return { ok: false, why: `${topo.masters.length} masters and ${topo.replicas.length} replicas (want ${masters} and ${ports.length - masters})` };
    }
    // Every replica has its link to its master up (ROLE: slave, host, port, state, offset).
    for (const r of topo.replicas) {
      const role = await command(r, ['ROLE'], opts).catch(() => null);
      if (!Array.isArray(role) || role[0] !== 'slave' || role[3] !== 'connected')
        return { ok: false, why: `replica ${r}: ${JSON.stringify(role?.slice(0, 4) ?? 'no answer')}` };
    }
    return { ok: true, why: '' };
  }

  /** Masters (with slots) and replicas as the first answering node sees them, failed ones left out. */
  async function topology() {
    for (const a of addrs) {
      let nodes;
      try {
        nodes = await clusterNodes(a, opts);
      } catch {
        continue;
      }
      const live = nodes.filter((n) => !n.failed);
      return {
        seenBy: a,
        masters: live.filter((n) => n.role === 'master' && n.slots.length > 0).map((n) => n.addr),
        replicas: live.filter((n) => n.role === 'replica').map((n) => n.addr),
        nodes,
      };
    }
    throw new Error(`${label}: no node answers CLUSTER NODES`);
  }

  async function waitHealthy(timeoutMs = 30_000) {
    let last = { ok: false, why: 'not checked' };
    const ok = await waitFor(async () => (last = await health()).ok, timeoutMs, 200);
    if (!ok) throw new Error(`${label}: not healthy after ${timeoutMs / 1000} s (${last.why})`);
  }

  async function create() {
    const args = ['--cluster', 'create', ...addrs, '--cluster-replicas', String(replicas), '--cluster-yes'];
    const env = password ? { ...process.env, REDISCLI_AUTH: password } : undefined;
    const res = await run('redis-cli', args, { env }).catch((err) => ({ status: -1, output: err.message }));
    if (res.status !== 0 || !/All 16384 slots covered/.test(res.output)) {
      throw new Error(`${label}: redis-cli --cluster create failed (exit ${res.status}):\n${res.output.split('\n').slice(-15).join('\n')}`);
    }
  }

  /** The node state after start: 'formed' (all know each other and every slot is assigned), 'fresh' (none formed), else 'mixed'. */
  async function formation() {
    const all = await infos();
    if (all.some((i) => !i)) return 'mixed';
    if (all.every((i) => Number(i.cluster_known_nodes) === addrs.length && Number(i.cluster_slots_assigned) === SLOTS)) return 'formed';
    if (all.every((i) => Number(i.cluster_known_nodes) === 1 && Number(i.cluster_slots_assigned) === 0)) return 'fresh';
    return 'mixed';
  }

  /** Stops every node (SIGTERM by recorded pid, SIGKILL after `timeoutMs`): the pids it stopped. */
  async function stop({ timeoutMs = 10_000 } = {}) {
    const stopped = await Promise.all(addrs.map((a) => signalNode(a, 'SIGCONT').then(() => signalNode(a, 'SIGTERM', { timeoutMs }))));
    return stopped.filter(Boolean);
  }

  /** Stops every node and deletes every node's directory (data, nodes.conf, log). */
  async function wipe() {
    await stop();
    for (const port of ports) fs.rmSync(paths(port).dir, { recursive: true, force: true });
  }

  /**
   * Idempotent: reuses a healthy cluster; starts nodes that are down (they rejoin from nodes.conf);
   * forms a fresh one; re-creates it cleanly (only from nodes it started itself) when it cannot heal.
   * Resolves { how: 'reused' | 'rejoined' | 'created' | 're-created' }.
   */
  async function ensure({ healTimeoutMs = 30_000 } = {}) {
    const t0 = Date.now();
    if ((await health()).ok) return { how: 'reused' };
    if (!isLocalHost(host)) throw new Error(`${label}: ${addrs.join(',')} is not healthy and not local, so not starting it`);
    fs.mkdirSync(dir, { recursive: true });
    return withLock(path.join(dir, 'start.lock'), async () => {
      if ((await health()).ok) return { how: 'reused' };
      const foreign = [];
      for (const a of addrs) if (!pidOf(a) && (await ping(a, opts))) foreign.push(a);
      if (foreign.length)
        throw new Error(
          `${label}: redis-server processes not started here answer on ${foreign.join(', ')} and the cluster is not healthy; stop them or point the nodes elsewhere`,
        );
      const down = [];
      for (const a of addrs) if (!pidOf(a)) down.push(a);
      await Promise.all(down.map((a) => startNode(a)));
      const state = await formation();
      if (state === 'formed') {
        try {
          await waitHealthy(healTimeoutMs);
          log(`${label}: started ${down.length} node(s) again, they rejoined from nodes.conf (${secs(t0)})`);
          return { how: 'rejoined' };
        } catch (err) {
          log(`${label}: ${err.message}; re-creating it`);
        }
      }
      if (state === 'fresh') {
        await create();
        await waitHealthy(healTimeoutMs);
        log(`${label}: created ${addrs.length} nodes on ${host} ports ${ports.join(',')} in ${shortPath(dir)} (${secs(t0)})`);
        return { how: 'created' };
      }
      if (state === 'mixed') log(`${label}: nodes disagree (some formed, some not); re-creating it`);
      await wipe();
      await Promise.all(addrs.map((a) => startNode(a)));
      await create();
      await waitHealthy(healTimeoutMs);
      log(`${label}: re-created ${addrs.length} nodes from scratch (${secs(t0)})`);
      return { how: 're-created' };
    });
  }

  /** The hash slot of `key` (CLUSTER KEYSLOT on the first node that answers). */
  async function keySlot(key) {
    let last;
    for (const a of addrs) {
      try {
        return Number(await command(a, ['CLUSTER', 'KEYSLOT', key], opts));
      } catch (err) {
        last = err;
      }
    }
    throw last;
  }

  /**
   * The master serving `slot`, agreed by every node that answers (failed or flagged nodes do not
   * count); null while there is none or the nodes disagree.
   */
  async function slotMaster(slot) {
    const views = await Promise.all(addrs.map((a) => clusterNodes(a, opts).catch(() => null)));
    const owners = new Set();
    let answered = 0;
    for (const nodes of views) {
      if (!nodes) continue;
      answered++;
      const owner = nodes.find((n) => n.role === 'master' && !n.failed && ownsSlot(n, slot));
      owners.add(owner ? owner.addr : null);
    }
    if (answered === 0 || owners.size !== 1) return null;
    const [owner] = owners;
    if (!owner) return null;
    // The owner itself must answer as a master (a node just killed is not yet flagged by the others).
    const role = await command(owner, ['ROLE'], opts).catch(() => null);
    return Array.isArray(role) && role[0] === 'master' ? owner : null;
  }

  async function masterOf(key) {
    return slotMaster(await keySlot(key));
  }

  /** SIGKILL of a master's recorded pid (it must be a master now). Resolves { addr, pid, slots }. */
  async function killMaster(addr) {
    const role = await command(addr, ['ROLE'], opts);
    if (!Array.isArray(role) || role[0] !== 'master') throw new Error(`${label}: ${addr} is not a master (ROLE ${JSON.stringify(role?.[0])})`);
    const mine = (await clusterNodes(addr, opts)).find((n) => n.myself);
    const pid = await signalNode(addr, 'SIGKILL');
    if (!pid) throw new Error(`${label}: no recorded running pid for ${addr}`);
    return { addr, pid, slots: mine?.slots ?? [] };
  }

  /**
   * Waits until a master other than `from` serves `slot` (the replica's promotion). Resolves { addr, ms }.
   */
  async function waitForPromotion(slot, { from = null, timeoutMs = 30_000 } = {}) {
    const t0 = Date.now();
    let owner = null;
    const ok = await waitFor(
      async () => {
        owner = await slotMaster(slot);
        return owner !== null && owner !== from;
      },
      timeoutMs,
      100,
    );
    if (!ok) throw new Error(`${label}: no master other than ${from ?? '-'} serves slot ${slot} after ${timeoutMs / 1000} s`);
    return { addr: owner, ms: Date.now() - t0 };
  }

  /**
   * Starts a stopped or killed node again (same port and nodes.conf) and waits until it is part of the
   * cluster again; a former master whose slots were taken over comes back as a replica.
   * Resolves { pid, role, ms }.
   */
  async function restart(addr, { timeoutMs = 30_000 } = {}) {
    const t0 = Date.now();
    const pid = await startNode(addr);
    let role = null;
    const ok = await waitFor(
      async () => {
        const r = await command(addr, ['ROLE'], opts).catch(() => null);
        const info = await clusterInfo(addr, opts).catch(() => null);
        if (!r || !info || info.cluster_state !== 'ok') return false;
        role = r[0] === 'slave' ? 'replica' : r[0];
        // A replica is back once its link to the master is up (ROLE: slave, host, port, state, offset).
        return role === 'master' || (role === 'replica' && r[3] === 'connected');
      },
      timeoutMs,
      100,
    );
    if (!ok) throw new Error(`${label}: ${addr} did not rejoin within ${timeoutMs / 1000} s (role ${role ?? 'none'})`);
    return { pid, role, ms: Date.now() - t0 };
  }

  return {
    dir,
    nodes: addrs,
    ports,
    password,
    pid: pidOf,
    startNode,
    signalNode,
    health,
    topology,
    waitHealthy,
    ensure,
    create,
    stop,
    wipe,
    keySlot,
    slotMaster,
    masterOf,
    killMaster,
    waitForPromotion,
    restart,
    info: (addr) => clusterInfo(addr, opts),
    command: (addr, args) => command(addr, args, opts),
    commands: (addr, cmds) => commands(addr, cmds, opts),
  };
}

/** Serialises starts across processes: a second caller waits for the first instead of racing it. */
async function withLock(lock, fn) {
  const take = () => {
    try {
      fs.writeFileSync(lock, String(process.pid), { flag: 'wx' });
      return true;
    } catch (err) {
      if (err.code !== 'EEXIST') throw err;
    }
    try {
      process.kill(Number(fs.readFileSync(lock, 'utf8')), 0);
    } catch (err) {
      if (err.code !== 'EPERM') fs.rmSync(lock, { force: true }); // owner is gone: stale lock
    }
    return false;
  };
  if (!(await waitFor(take, 180_000, 200))) throw new Error(`another process holds ${lock} for over 3 min`);
  try {
    return await fn();
  } finally {
    fs.rmSync(lock, { force: true });
  }
}

/** The shared test cluster of infra:up (REDIS_CLUSTER_NODES, default 127.0.0.1:7001-7006, under INFRA_DIR/redis-cluster). */
function sharedCluster(env = readEnv()) {
  const parsed = env.redisClusterNodes.map(parseAddr);
  const host = parsed[0].host;
  return createRedisCluster({
    dir: env.redisClusterDir,
    ports: parsed.map((n) => n.port),
    host,
    password: env.redisPassword,
    detached: true,
  });
}

/** infra:up's part: the shared cluster healthy (reused, healed or created). */
async function ensureRedisCluster(env = readEnv()) {
  const t0 = Date.now();
  const cluster = sharedCluster(env);
  const { how } = await cluster.ensure();
  if (how === 'reused')
    defaultLog(
      `redis-cluster: ok, ${cluster.nodes.length} nodes answer on ${cluster.nodes[0]}…${cluster.nodes.at(-1).split(':').pop()}, cluster_state ok (${secs(t0)})`,
    );
  return cluster;
}

/** infra:down's part: stops the nodes infra:up started (by recorded pid); `purge` also deletes their directories. */
async function stopRedisCluster({ purge = false } = {}, env = readEnv()) {
  const cluster = sharedCluster(env);
  const t0 = Date.now();
  const pids = await cluster.stop();
  if (pids.length) defaultLog(`redis-cluster: stopped ${pids.length} node(s), pids ${pids.join(', ')} (${secs(t0)})`);
  else defaultLog('redis-cluster: not running (no live recorded pid)');
  if (purge) {
    fs.rmSync(env.redisClusterDir, { recursive: true, force: true });
    defaultLog(`redis-cluster: purged ${shortPath(env.redisClusterDir)}`);
  }
  return pids;
}

module.exports = {
  createRedisCluster,
  ensureRedisCluster,
  stopRedisCluster,
  sharedCluster,
  command,
  commands,
  ping,
  clusterInfo,
  clusterNodes,
  parseInfo,
  parseAddr,
  parseReply,
  NODE_DEFAULTS,
  SLOTS,
};
