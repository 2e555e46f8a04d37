// The Redis Cluster of the tests: the shared one that scripts/infra/up.js starts on 7001-7006 (three
// masters, three replicas), an ioredis Cluster client for it, which master owns a key, and private
// clusters of six redis-server processes on free ports for tests that kill nodes: the shared cluster
// other tests (and other checkouts) use is never disturbed, and every signal goes to a recorded pid.
// The processes, their configuration and the cluster commands are scripts/infra/redis-cluster.js's.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Cluster, type ClusterOptions } from 'ioredis';
import { redisClusterNodes, redisPassword } from '../config';
import { freePort } from './private-postgres';

interface ClusterNode {
  id: string;
  addr: string;
  role: 'master' | 'replica' | 'unknown';
  master: string | null;
  failed: boolean;
  myself: boolean;
  slots: [number, number][];
}
interface Topology {
  seenBy: string;
  masters: string[];
  replicas: string[];
  nodes: ClusterNode[];
}
interface ClusterControl {
  dir: string;
  nodes: string[];
  ports: number[];
  pid(addr: string): number | null;
  ensure(): Promise<{ how: string }>;
  health(): Promise<{ ok: boolean; why: string }>;
  waitHealthy(timeoutMs?: number): Promise<void>;
  topology(): Promise<Topology>;
  keySlot(key: string): Promise<number>;
  slotMaster(slot: number): Promise<string | null>;
  masterOf(key: string): Promise<string | null>;
  killMaster(addr: string): Promise<{ addr: string; pid: number; slots: [number, number][] }>;
  waitForPromotion(slot: number, options?: { from?: string | null; timeoutMs?: number }): Promise<{ addr: string; ms: number }>;
  restart(addr: string, options?: { timeoutMs?: number }): Promise<{ pid: number; role: string; ms: number }>;
  signalNode(addr: string, signal: NodeJS.Signals, options?: { wait?: boolean; timeoutMs?: number }): Promise<number | null>;
  stop(): Promise<number[]>;
  info(addr: string): Promise<Record<string, string>>;
  command(addr: string, args: (string | number)[]): Promise<unknown>;
  commands(addr: string, cmds: (string | number)[][]): Promise<unknown[]>;
}

// eslint-disable-next-line @typescript-eslint/no-require-imports
const infra = require('../../scripts/infra/redis-cluster.js') as {
  createRedisCluster(options: {
    dir: string;
    ports: number[];
    busPorts?: number[] | null;
    host?: string;
    password?: string;
    detached?: boolean;
    onSpawn?: (name: string, pid: number) => void;
    log?: (msg: string) => void;
    label?: string;
  }): ClusterControl;
  command(addr: string, args: (string | number)[], options?: { password?: string; timeoutMs?: number }): Promise<unknown>;
  clusterNodes(addr: string, options?: { password?: string }): Promise<(ClusterNode & { flags: Set<string> })[]>;
  parseAddr(addr: string): { host: string; port: number };
};

/** The shared test cluster's nodes, "host:port" (REDIS_CLUSTER_NODES, default 127.0.0.1:7001-7006). */
export function clusterNodes(): string[] {
  return redisClusterNodes();
}

/** An ioredis Cluster client (of the shared cluster unless `nodes` is given, with REDIS_PASSWORD if set); close it with `disconnect()` or `quit()`. */
export function createClusterClient(options: ClusterOptions = {}, nodes: string[] = clusterNodes()): Cluster {
  return clusterClient(nodes, redisPassword(), options);
}

function clusterClient(nodes: string[], password: string | undefined, options: ClusterOptions): Cluster {
  return new Cluster(
    nodes.map((n) => infra.parseAddr(n)),
    { ...options, redisOptions: { ...(password ? { password } : {}), connectTimeout: 2000, ...options.redisOptions } },
  );
}

/** The hash slot of `key` (CLUSTER KEYSLOT, asked of the first node that answers). */
export async function keySlot(key: string, nodes: string[] = clusterNodes()): Promise<number> {
  let last: unknown;
  for (const n of nodes) {
    try {
      return Number(await infra.command(n, ['CLUSTER', 'KEYSLOT', key], { password: redisPassword() }));
    } catch (err) {
      last = err;
    }
  }
  throw last;
}

/**
 * The address ("host:port") of the master that serves `key`'s slot (CLUSTER KEYSLOT, then CLUSTER
 * NODES as every answering node sees it); null while no master serves it or the nodes disagree.
 */
export async function masterOf(key: string, nodes: string[] = clusterNodes()): Promise<string | null> {
  const slot = await keySlot(key, nodes);
  const views = await Promise.all(nodes.map((n) => infra.clusterNodes(n, { password: redisPassword() }).catch(() => null)));
  const owners = new Set<string | null>();
  for (const view of views) {
    if (!view) continue;
    const owner = view.find((n) => n.role === 'master' && !n.failed && n.slots.some(([a, b]) => slot >= a && slot <= b));
    owners.add(owner?.addr ?? null);
  }
  return owners.size === 1 ? ([...owners][0] ?? null) : null;
}

/** The shared cluster's masters and replicas (CLUSTER NODES of the first node that answers). */
export async function clusterTopology(nodes: string[] = clusterNodes()): Promise<Topology> {
  for (const n of nodes) {
    try {
      const view = await infra.clusterNodes(n, { password: redisPassword() });
      const live = view.filter((x) => !x.failed);
      return {
        seenBy: n,
        masters: live.filter((x) => x.role === 'master' && x.slots.length > 0).map((x) => x.addr),
        replicas: live.filter((x) => x.role === 'replica').map((x) => x.addr),
        nodes: view,
      };
    } catch {
      // the next one
    }
  }
  throw new Error(`no node of ${nodes.join(', ')} answers CLUSTER NODES`);
}

export interface PrivateRedisCluster {
  /** "127.0.0.1:port" of the six nodes (three masters, three replicas once formed). */
  nodes: string[];
  dir: string;
  password: string | undefined;
  /** An ioredis Cluster client of this cluster. */
  client(options?: ClusterOptions): Cluster;
  keySlot(key: string): Promise<number>;
  /** The master serving `key`'s slot as every answering node agrees; null while there is none. */
  masterOf(key: string): Promise<string | null>;
  slotMaster(slot: number): Promise<string | null>;
  topology(): Promise<Topology>;
  /** The recorded pid of a node while it runs, else null. */
  pid(addr: string): number | null;
  /** SIGKILL of a master's recorded pid (it must be a master). */
  killMaster(addr: string): Promise<{ addr: string; pid: number; slots: [number, number][] }>;
  /** Until a master other than `from` serves `slot`: the promoted replica's address and how long it took. */
  waitForPromotion(slot: number, options?: { from?: string | null; timeoutMs?: number }): Promise<{ addr: string; ms: number }>;
  /** Starts a killed or stopped node again on its port with its nodes.conf; resolves once it has rejoined (a replica, if its slots moved). */
  restart(addr: string, options?: { timeoutMs?: number }): Promise<{ pid: number; role: string; ms: number }>;
  /** SIGSTOP/SIGCONT/SIGTERM/SIGKILL to one node's recorded pid. */
  signal(addr: string, signal: NodeJS.Signals): Promise<number | null>;
  /** Every node answers, cluster_state:ok with all 16384 slots served, 3 masters and 3 replicas. */
  waitHealthy(timeoutMs?: number): Promise<void>;
  /** A command to one node. */
  command(addr: string, args: (string | number)[]): Promise<unknown>;
  /** Commands to one node over one connection (READONLY then a read on a replica, say): their replies. */
  commands(addr: string, cmds: (string | number)[][]): Promise<unknown[]>;
  /** Stops every node by recorded pid (SIGTERM, then SIGKILL) and deletes the directory if this helper made it. */
  stop(): Promise<void>;
}

/**
 * Six redis-server processes on free loopback ports (each with its own free cluster-bus port), in
 * `dir` (default: a new temporary directory), formed into three masters with one replica each by
 * `redis-cli --cluster create`. Same settings as the shared cluster: no persistence,
 * cluster-node-timeout 2000 ms, maxmemory 256mb with noeviction; AUTH when `password` is given.
 */
export async function startPrivateRedisCluster({ dir, password }: { dir?: string; password?: string } = {}): Promise<PrivateRedisCluster> {
  const own = dir === undefined;
  const root = dir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'glimpse-redis-cluster-'));
  const free = new Set<number>();
  while (free.size < 12) free.add(await freePort());
  const all = [...free];
  const ctl = infra.createRedisCluster({
    dir: root,
    ports: all.slice(0, 6),
    busPorts: all.slice(6),
    password,
    detached: false,
    log: () => {},
    label: 'private redis-cluster',
  });
  try {
    await ctl.ensure();
  } catch (err) {
    await ctl.stop().catch(() => {});
    throw err;
  }
  return {
    nodes: ctl.nodes,
    dir: root,
    password,
    client: (options: ClusterOptions = {}) => clusterClient(ctl.nodes, password, options),
    keySlot: (key) => ctl.keySlot(key),
    masterOf: (key) => ctl.masterOf(key),
    slotMaster: (slot) => ctl.slotMaster(slot),
    topology: () => ctl.topology(),
    pid: (addr) => ctl.pid(addr),
    killMaster: (addr) => ctl.killMaster(addr),
    waitForPromotion: (slot, options) => ctl.waitForPromotion(slot, options),
    restart: (addr, options) => ctl.restart(addr, options),
    signal: (addr, signal) => ctl.signalNode(addr, signal),
    waitHealthy: (timeoutMs) => ctl.waitHealthy(timeoutMs),
    command: (addr, args) => ctl.command(addr, args),
    commands: (addr, cmds) => ctl.commands(addr, cmds),
    async stop() {
      try {
        await ctl.stop();
      } finally {
        if (own) fs.rmSync(root, { recursive: true, force: true });
      }
    },
  };
}
