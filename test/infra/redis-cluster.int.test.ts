// The tests' Redis Cluster: the shared one infra:up starts (six redis-server processes, three
// masters with a replica each, every slot served) and a private one whose master is SIGKILLed: its
// replica is promoted, keys written before the kill are read from it, and the old master, started
// again on its port with its nodes.conf, rejoins as a replica. The shared cluster is not touched.
import fs from 'node:fs';
import type { Cluster } from 'ioredis';
import {
  clusterNodes,
  clusterTopology,
  createClusterClient,
  keySlot,
  masterOf,
  startPrivateRedisCluster,
  type PrivateRedisCluster,
} from '../support/redis-cluster';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const infra = require('../../scripts/infra/redis-cluster.js') as {
  command(addr: string, args: (string | number)[], options?: { password?: string }): Promise<unknown>;
  clusterInfo(addr: string, options?: { password?: string }): Promise<Record<string, string>>;
};
const password = process.env.REDIS_PASSWORD || undefined;

type SlotRange = [number, number, [string, number, string], ...[string, number, string][]];

describe('the shared test Redis Cluster (scripts/infra/up.js)', () => {
  let client: Cluster;
  beforeAll(() => {
    client = createClusterClient();
  });
  afterAll(async () => {
    await client.quit();
  });

  it('when infra:up has run, then six nodes form three masters with one replica each, every node says cluster_state:ok and all 16384 slots are served', async () => {
    const nodes = clusterNodes();
    expect(nodes).toHaveLength(6);
    for (const n of nodes) {
      const info = await infra.clusterInfo(n, { password });
      expect({ n, state: info.cluster_state, slotsOk: info.cluster_slots_ok, known: info.cluster_known_nodes, size: info.cluster_size }).toEqual({
        n,
        state: 'ok',
        slotsOk: '16384',
        known: '6',
        size: '3',
      });
    }
    const topo = await clusterTopology();
    expect(topo.masters).toHaveLength(3);
    expect(topo.replicas).toHaveLength(3);
    expect(new Set([...topo.masters, ...topo.replicas])).toEqual(new Set(nodes));
    // Each replica follows a different master.
    const byId = new Map(topo.nodes.map((x) => [x.id, x.addr]));
    expect(new Set(topo.nodes.filter((x) => x.role === 'replica').map((x) => byId.get(x.master!)))).toEqual(new Set(topo.masters));

    const ranges = (await client.cluster('SLOTS')) as unknown as SlotRange[];
    let covered = 0;
    for (const [from, to, master, ...replicas] of ranges) {
      covered += to - from + 1;
      expect(topo.masters).toContain(`${master[0]}:${master[1]}`);
      expect(replicas).toHaveLength(1);
    }
    expect(covered).toBe(16384);
  });

  it('when a node is asked for its settings, then it runs without persistence, with noeviction, 256 MB and a 2 s node timeout', async () => {
    for (const n of clusterNodes()) {
      const get = async (name: string) => ((await infra.command(n, ['CONFIG', 'GET', name], { password })) as string[])[1];
      expect({
        n,
        policy: await get('maxmemory-policy'),
        maxmemory: await get('maxmemory'),
        timeout: await get('cluster-node-timeout'),
        save: await get('save'),
        aof: await get('appendonly'),
      }).toEqual({ n, policy: 'noeviction', maxmemory: String(256 * 1024 * 1024), timeout: '2000', save: '', aof: 'no' });
    }
  });

  it('when a key is written through the cluster client, then masterOf names the node that serves it without a redirection', async () => {
    const key = `glimpse:{a:infra-test-${process.pid}}:raw`;
    await client.set(key, 'v', 'EX', 60);
    const master = await masterOf(key);
    expect(clusterNodes()).toContain(master);
    expect(await infra.command(master!, ['GET', key], { password })).toBe('v');
    expect(await keySlot(key)).toBe(await client.cluster('KEYSLOT', key));
    const other = (await clusterTopology()).masters.find((m) => m !== master)!;
    await expect(infra.command(other, ['GET', key], { password })).rejects.toThrow(/MOVED/);
    await client.del(key);
  });
});

describe('a private Redis Cluster (test/support/redis-cluster.ts)', () => {
  let cluster: PrivateRedisCluster | undefined;
  let client: Cluster | undefined;
  afterAll(async () => {
    client?.disconnect();
    await cluster?.stop();
  });

  it('when the master of a key is SIGKILLed, then its replica is promoted and serves the key, and the old master started again rejoins as a replica', async () => {
    cluster = await startPrivateRedisCluster();
    expect(cluster.nodes).toHaveLength(6);
    for (const n of cluster.nodes) expect(clusterNodes()).not.toContain(n);
    client = cluster.client();
    const key = 'glimpse:{a:failover-test}:raw';
    const slot = await cluster.keySlot(key);
    await client.set(key, 'before the kill');
    const master = (await cluster.masterOf(key))!;
    expect(cluster.nodes).toContain(master);
    const topo = await cluster.topology();
    const replicaOf = topo.nodes.find((n) => n.role === 'replica' && n.master === topo.nodes.find((m) => m.addr === master)!.id)!.addr;
    // The replica has the write before the kill (replication is asynchronous).
    const deadline = Date.now() + 10_000;
    while ((await cluster.commands(replicaOf, [['READONLY'], ['GET', key]]))[1] !== 'before the kill') {
      if (Date.now() > deadline) throw new Error(`the replica ${replicaOf} did not get the write in 10 s`);
      await new Promise((r) => setTimeout(r, 50));
    }

    const killed = await cluster.killMaster(master);
    expect(killed.pid).toBeGreaterThan(0);
    expect(cluster.pid(master)).toBeNull();
    expect(() => process.kill(killed.pid, 0)).toThrow();

    const promoted = await cluster.waitForPromotion(slot, { from: master, timeoutMs: 30_000 });
    expect(promoted.addr).toBe(replicaOf);
    expect(promoted.ms).toBeLessThan(15_000);
    expect(await cluster.masterOf(key)).toBe(replicaOf);
    expect(await client.get(key)).toBe('before the kill');
    await client.set(key, 'after the promotion');

    const back = await cluster.restart(master);
    expect(back.role).toBe('replica');
    expect(cluster.pid(master)).toBe(back.pid);
    await cluster.waitHealthy(30_000);
    const after = await cluster.topology();
    expect(after.masters).toContain(replicaOf);
    expect(after.masters).not.toContain(master);
    expect(after.replicas).toContain(master);
    expect(await client.get(key)).toBe('after the promotion');

    const dir = cluster.dir;
    const pids = cluster.nodes.map((n) => cluster!.pid(n)!);
    await cluster.stop();
    cluster = undefined;
    for (const pid of pids) expect(() => process.kill(pid, 0)).toThrow();
    expect(fs.existsSync(dir)).toBe(false);
    // The shared cluster did not notice.
    expect((await clusterTopology()).masters).toHaveLength(3);
  });
});
