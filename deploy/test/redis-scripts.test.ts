// The Redis Cluster's scripts, as the rendered ConfigMap holds them, run against six real
// redis-server processes: one per loopback address (127.0.0.2-7, one port), as pods have one
// address each. start.sh configures and starts a node; create-cluster.sh forms the cluster, is a
// no-op the second time and adds back a node that lost nodes.conf; a master killed and restarted at
// once waits for its replica to take over instead of wiping it; pre-stop.sh hands a master's slots
// over; a peer's changed address in nodes.conf is refreshed from its name; probe.sh tells alive
// from ready. Needs redis-server and redis-cli 7 on PATH (as the test infrastructure does).
import { execFile, execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { find, one, render } from './lib/render';

jest.setTimeout(90_000);

const run = promisify(execFile);
const IPS = ['127.0.0.2', '127.0.0.3', '127.0.0.4', '127.0.0.5', '127.0.0.6', '127.0.0.7'];
const PASSWORD = 'f00dfeedc0ffee';
const LIMIT_MB = 256;

const objects = render('base/redis');
const configMap = find(objects, 'ConfigMap')[0]!;
const container = one(objects, 'StatefulSet', 'redis-cluster').spec.template.spec.containers[0];
const percent = Number(container.env.find((e: any) => e.name === 'REDIS_MAXMEMORY_PERCENT').value);

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'redis-cluster-scripts-'));
const scripts = path.join(tmp, 'scripts');
let port = 0;
const pids = new Map<number, number>();
let nodes = '';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const nodeDir = (i: number) => path.join(tmp, `node${i}`);
const log = (i: number) => fs.readFileSync(path.join(nodeDir(i), 'log'), 'utf8');

function cli(i: number, ...args: string[]): string {
  try {
    return execFileSync('redis-cli', ['-h', IPS[i]!, '-p', String(port), '--no-auth-warning', ...args], {
      env: { ...process.env, REDISCLI_AUTH: PASSWORD },
      timeout: 5000,
    })
      .toString()
      .replace(/\r/g, '')
      .trim();
  } catch (e) {
    return `(failed) ${(e as Error).message}`;
  }
}

const env = (i: number, extra: Record<string, string> = {}) => ({
  ...process.env,
  REDIS_PASSWORD: PASSWORD,
  REDIS_ANNOUNCE_HOSTNAME: IPS[i]!,
  REDIS_MEMORY_LIMIT_MB: String(LIMIT_MB),
  REDIS_MAXMEMORY_PERCENT: String(percent),
  POD_IP: IPS[i]!,
  REDIS_HOST: IPS[i]!,
  REDIS_PORT: String(port),
  REDIS_BIND: IPS[i]!,
  REDIS_DATA_DIR: path.join(nodeDir(i), 'data'),
  REDIS_CLUSTER_DIR: path.join(nodeDir(i), 'cluster'),
  REDIS_RUN_DIR: path.join(nodeDir(i), 'run'),
  ...extra,
});

/** start.sh for node i (it execs redis-server: the pid is the server's). */
function start(i: number, extra: Record<string, string> = {}): void {
  fs.mkdirSync(nodeDir(i), { recursive: true });
  const out = fs.openSync(path.join(nodeDir(i), 'log'), 'a');
  const child = spawn('sh', [path.join(scripts, 'start.sh')], { env: env(i, extra), stdio: ['ignore', out, out] });
  fs.closeSync(out);
  pids.set(i, child.pid!);
}

function kill(i: number): void {
  try {
    process.kill(pids.get(i)!, 'SIGKILL');
  } catch {
    /* gone already */
  }
  pids.delete(i);
}

async function until(what: string, check: () => boolean, ms = 30_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(250);
  }
}

async function script(name: string, extra: Record<string, string>): Promise<{ code: number; output: string }> {
  try {
    const { stdout, stderr } = await run('sh', [path.join(scripts, name)], { env: { ...process.env, REDIS_PASSWORD: PASSWORD, ...extra }, timeout: 80_000 });
    return { code: 0, output: stdout + stderr };
  } catch (e) {
    const err = e as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof err.code === 'number' ? err.code : 1, output: `${err.stdout ?? ''}${err.stderr ?? ''}` };
  }
}

const probeCode = async (i: number, which: 'live' | 'ready') =>
  await run('sh', [path.join(scripts, 'probe.sh'), which], { env: env(i) }).then(
    () => 0,
    (e) => (e as { code: number }).code,
  );

/** node index → its line of CLUSTER NODES as seen from node `from`. */
function view(from: number): { id: string; ip: string; flags: string; master: string; slots: string[] }[] {
  return cli(from, 'cluster', 'nodes')
    .split('\n')
    .filter(Boolean)
    .map((l) => {
      const f = l.split(' ');
      return { id: f[0]!, ip: f[1]!.split(':')[0]!, flags: f[2]!, master: f[3]!, slots: f.slice(8) };
    });
}
const roleOf = (i: number) => cli(i, 'role').split('\n')[0];
const clusterOk = (i: number) => cli(i, 'cluster', 'info').includes('cluster_state:ok');

async function freePort(): Promise<number> {
  const bindable = (host: string, p: number) =>
    new Promise<boolean>((resolve) => {
      const s = net
        .createServer()
        .once('error', () => resolve(false))
        .listen(p, host, () => s.close(() => resolve(true)));
    });
  for (let attempt = 0; attempt < 50; attempt++) {
    const p = 20000 + Math.floor(Math.random() * 9000);
    let ok = true;
    for (const ip of IPS) for (const q of [p, p + 10000]) if (ok && !(await bindable(ip, q))) ok = false;
    if (ok) return p;
  }
  throw new Error('no free port on 127.0.0.2-7');
}

beforeAll(async () => {
  fs.mkdirSync(scripts);
  for (const [name, text] of Object.entries(configMap.data as Record<string, string>)) fs.writeFileSync(path.join(scripts, name), text);
  port = await freePort();
  nodes = IPS.map((ip) => `${ip}:${port}`).join(',');
  IPS.forEach((_, i) => start(i));
  await until('six nodes answering PING', () => IPS.every((_, i) => cli(i, 'ping') === 'PONG'), 15_000);
});

afterAll(() => {
  for (const i of [...pids.keys()]) kill(i);
  fs.rmSync(tmp, { recursive: true, force: true });
});

describe('the Redis Cluster scripts against real redis-server processes', () => {
  it('when start.sh starts a node, then it runs in cluster mode with AUTH, noeviction, no persistence, maxmemory from the limit and its announced name', () => {
    const config = (name: string) => {
      const [key, value] = `${cli(0, 'config', 'get', name)}\n`.split('\n');
      expect(key).toBe(name);
      return value;
    };
    expect(Number(config('maxmemory'))).toBe(Math.floor((LIMIT_MB * percent) / 100) * 1024 * 1024);
    expect(config('maxmemory-policy')).toBe('noeviction');
    expect(config('save')).toBe('');
    expect(config('appendonly')).toBe('no');
    expect(config('cluster-announce-hostname')).toBe(IPS[0]);
    expect(config('cluster-preferred-endpoint-type')).toBe('hostname');
    expect(config('masterauth')).toBe(PASSWORD);
    expect(cli(0, 'cluster', 'info')).toMatch(/cluster_enabled:1|cluster_state:fail/);
    // Without the password: refused.
    const { REDISCLI_AUTH: _, ...withoutAuth } = process.env;
    const anonymous = execFileSync('redis-cli', ['-h', IPS[0]!, '-p', String(port), 'ping'], {
      env: withoutAuth,
      stdio: ['ignore', 'pipe', 'pipe'],
    }).toString();
    expect(anonymous).toMatch(/NOAUTH/);
    // The generated configuration (with the password) is readable by its owner only.
    expect(fs.statSync(path.join(nodeDir(0), 'run', 'redis.conf')).mode & 0o077).toBe(0);
  });

  it('when the nodes are up but not formed, then they are alive and not ready', async () => {
    expect(await probeCode(0, 'live')).toBe(0);
    expect(await probeCode(0, 'ready')).not.toBe(0);
  });

  it('when the Job runs, then it forms three masters with one replica each over every slot; run again, it changes nothing', async () => {
    const first = await script('create-cluster.sh', { REDIS_CLUSTER_NODES: nodes });
    expect({ code: first.code, tail: first.code ? first.output.slice(-2000) : '' }).toEqual({ code: 0, tail: '' });
    await until('cluster_state:ok everywhere', () => IPS.every((_, i) => clusterOk(i)));
    const before = view(0);
    const masters = before.filter((n) => n.flags.includes('master'));
    expect(masters).toHaveLength(3);
    expect(masters.every((m) => before.filter((n) => n.master === m.id).length === 1)).toBe(true);
    expect(cli(0, 'cluster', 'info')).toMatch(/cluster_slots_assigned:16384/);

    const second = await script('create-cluster.sh', { REDIS_CLUSTER_NODES: nodes });
    expect(second.code).toBe(0);
    expect(second.output).toMatch(/the cluster exists/);
    const strip = (v: ReturnType<typeof view>) => v.map((n) => `${n.id} ${n.flags.replace('myself,', '')} ${n.master} ${n.slots.join(' ')}`).sort();
    expect(strip(view(0))).toEqual(strip(before));
    for (let i = 0; i < IPS.length; i++) {
      const deadline = Date.now() + 20_000;
      while ((await probeCode(i, 'ready')) !== 0 && Date.now() < deadline) await sleep(500);
      expect({ node: i, ready: await probeCode(i, 'ready') }).toEqual({ node: i, ready: 0 });
    }
  });

  it('when a master is killed and restarted at once, then it waits for its replica to take over and rejoins as its replica: no key of its slots is lost', async () => {
    const masterIp = view(0).find((n) => n.flags.includes('master') && n.slots.length > 0)!.ip;
    const m = IPS.indexOf(masterIp);
    // A key in this master's slots (an account's hash tag, as the gateway writes them).
    const key = Array.from({ length: 200 }, (_, n) => `glimpse:{a:${n}}:idem:k`).find((k) => cli(m, 'set', k, 'kept') === 'OK')!;
    expect(key).toBeDefined();
    expect(Number(cli(m, 'wait', '1', '5000'))).toBe(1); // the replica has it
    const me = view(m).find((n) => n.flags.includes('myself'))!.id;
    const replica = IPS.indexOf(view(m).find((n) => n.master === me)!.ip);

    kill(m);
    start(m);
    await until('the old master is a replica', () => roleOf(m) === 'slave', 45_000);
    expect(log(m)).toMatch(/was a master holding slots[\s\S]*joining as a replica/);
    expect(roleOf(replica)).toBe('master');
    expect(cli(replica, 'get', key)).toBe('kept');
    await until('cluster_state:ok everywhere', () => IPS.every((_, i) => clusterOk(i)));
    await until('the old master synced', () => cli(m, 'info', 'replication').includes('master_link_status:up'));
  });

  it('when a master is stopped (preStop), then it hands its slots to its replica first, losing nothing', async () => {
    const masterIp = view(0).find((n) => n.flags.includes('master') && n.slots.length > 0)!.ip;
    const m = IPS.indexOf(masterIp);
    const key = Array.from({ length: 200 }, (_, n) => `glimpse:{a:${n}}:rate:events:1`).find((k) => cli(m, 'set', k, '7') === 'OK')!;
    const result = await script('pre-stop.sh', { REDIS_HOST: IPS[m]!, REDIS_PORT: String(port) });
    expect(result.output).toMatch(/now a replica of/);
    expect(roleOf(m)).toBe('slave');
    const successor = IPS.indexOf(cli(m, 'role').split('\n')[1]!);
    expect(cli(successor, 'get', key)).toBe('7');
    // A replica's preStop does nothing.
    expect((await script('pre-stop.sh', { REDIS_HOST: IPS[m]!, REDIS_PORT: String(port) })).code).toBe(0);
    expect(roleOf(m)).toBe('slave');
  });

  it("when a peer's address in nodes.conf is stale, then start.sh refreshes it from the peer's name before Redis reads it", async () => {
    const r = IPS.findIndex((_, i) => roleOf(i) === 'slave');
    const peer = (r + 1) % IPS.length;
    kill(r);
    const file = path.join(nodeDir(r), 'cluster', 'nodes.conf');
    await until('nodes.conf written', () => fs.existsSync(file));
    fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace(`${IPS[peer]}:${port}@`, `10.255.255.1:${port}@`));
    start(r);
    await until('the restarted replica synced', () => cli(r, 'info', 'replication').includes('master_link_status:up'));
    expect(log(r)).toMatch(new RegExp(`moved from 10\\.255\\.255\\.1 to ${IPS[peer]!.replace(/\./g, '\\.')}`));
    await until('it sees its peer again', () => view(r).some((n) => n.ip === IPS[peer] && !n.flags.includes('fail')));
  });

  it('when a replica lost nodes.conf, then the Job forgets its old identity and adds it back as a replica', async () => {
    const r = IPS.findIndex((_, i) => roleOf(i) === 'slave');
    const oldId = view(r).find((n) => n.flags.includes('myself'))!.id;
    kill(r);
    fs.rmSync(path.join(nodeDir(r), 'cluster'), { recursive: true, force: true });
    start(r);
    await until('the new node answers', () => cli(r, 'ping') === 'PONG');
    expect(cli(r, 'cluster', 'info')).toMatch(/cluster_known_nodes:1/);
    const result = await script('create-cluster.sh', { REDIS_CLUSTER_NODES: nodes });
    expect({ code: result.code, tail: result.code ? result.output.slice(-2000) : '' }).toEqual({ code: 0, tail: '' });
    expect(result.output).toMatch(new RegExp(`forgetting ${oldId}`));
    await until('six nodes, none failed, three masters each with one replica', () => {
      const v = view((r + 1) % IPS.length);
      const masters = v.filter((n) => n.flags.includes('master'));
      return (
        v.length === 6 &&
        !v.some((n) => /fail|noaddr/.test(n.flags)) &&
        masters.length === 3 &&
        masters.every((m) => v.filter((n) => n.master === m.id).length === 1)
      );
    });
    expect(view(0).some((n) => n.id === oldId)).toBe(false);
    expect(roleOf(r)).toBe('slave');
  });
});
