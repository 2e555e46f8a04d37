// A private Postgres for tests that stop, break or freeze it: initdb into a temporary directory and
// pg_ctl on a port of its own, so the machine's shared Postgres is never touched. Stopped by its own
// data directory (pg_ctl reads the postmaster's pid from it); signals go to the pid it recorded.
// As root, the server runs as `postgres`.
import { execFileSync } from 'node:child_process';
import { randomInt } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { migrate } from '@glimpse/db';

const REPO_ROOT = path.join(__dirname, '..', '..');

function binDir(): string {
  const root = '/usr/lib/postgresql';
  const versions = fs.existsSync(root)
    ? fs
        .readdirSync(root)
        .filter((v) => /^\d+$/.test(v))
        .sort((a, b) => Number(a) - Number(b))
    : [];
  if (versions.length === 0) throw new Error(`no Postgres server binaries under ${root} (apt-get install postgresql)`);
  return path.join(root, versions.at(-1)!, 'bin');
}

function asOwner(command: string, args: string[]): void {
  const asRoot = process.getuid?.() === 0;
  execFileSync(asRoot ? 'runuser' : command, asRoot ? ['-u', 'postgres', '--', command, ...args] : args, { stdio: 'pipe', timeout: 60_000 });
}

/**
 * The lowest port the kernel hands out as the local end of outgoing connections
 * (net.ipv4.ip_local_port_range; 32768 by default on Linux).
 */
function ephemeralFloor(): number {
  try {
    const low = Number(fs.readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    return Number.isInteger(low) && low > 21_000 ? low : 32_768;
  } catch {
    return 32_768;
  }
}
const PORTS_FROM = 20_000;
const PORTS_BELOW = ephemeralFloor();

/** True when 127.0.0.1:`port` can be listened on right now. */
export function canBind(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer().once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/**
 * A free port for a server a test starts, and may stop and start again on the same port (a broker,
 * Postgres, a proxy). It is drawn below the kernel's ephemeral range: a port from that range (what
 * listen(0) gives) can be taken, while the server is down, as the local end of any outgoing
 * connection, and with three test lanes a restarted broker once found its port taken that way.
 */
export async function freePort(): Promise<number> {
  for (let attempt = 0; attempt < 100; attempt += 1) {
    const port = PORTS_FROM + randomInt(PORTS_BELOW - PORTS_FROM - 1);
    if (await canBind(port)) return port;
  }
  throw new Error(`no free port between ${PORTS_FROM} and ${PORTS_BELOW}`);
}

export interface PrivatePostgres {
  port: number;
  /** A URL of database `postgres` on this server. */
  url: string;
  /** The postmaster's pid, from postmaster.pid. */
  pid(): number;
  start(): void;
  /** Fast shutdown (immediate: connections are cut at once). */
  stop(mode?: 'fast' | 'immediate'): void;
  /** SIGSTOP / SIGCONT of the postmaster: it accepts connections and answers nothing. */
  freeze(): void;
  thaw(): void;
  /** Stops the server if running and removes its directory. */
  destroy(): void;
}

/** Creates (initdb) a cluster for `port`; it is not running until start(). */
export function createPrivatePostgres(port: number): PrivatePostgres {
  const bin = binDir();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'glimpse-pg-'));
  if (process.getuid?.() === 0) execFileSync('chown', ['postgres:postgres', dir]);
  const data = path.join(dir, 'data');
  asOwner(path.join(bin, 'initdb'), ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync', '-E', 'UTF8']);
  const pgCtl = path.join(bin, 'pg_ctl');
  let running = false;
  let frozen = false;
  const pid = () => Number(fs.readFileSync(path.join(data, 'postmaster.pid'), 'utf8').split('\n')[0]);
  const handle: PrivatePostgres = {
    port,
    url: `postgresql://postgres@127.0.0.1:${port}/postgres`,
    pid,
    start() {
      asOwner(pgCtl, [
        'start',
        '-w',
        '-t',
        '30',
        '-D',
        data,
        '-l',
        path.join(dir, 'server.log'),
        '-o',
        `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=40`,
      ]);
      running = true;
    },
    stop(mode = 'fast') {
      if (!running) return;
      if (frozen) handle.thaw();
      asOwner(pgCtl, ['stop', '-w', '-D', data, '-m', mode]);
      running = false;
    },
    freeze() {
      process.kill(pid(), 'SIGSTOP');
      frozen = true;
    },
    thaw() {
      process.kill(pid(), 'SIGCONT');
      frozen = false;
    },
    destroy() {
      try {
        handle.stop();
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    },
  };
  return handle;
}

/** A running private Postgres on a free port with database `glimpse_private` migrated like the real one; `url` names that database. */
export async function startPrivatePostgres(): Promise<PrivatePostgres> {
  const server = createPrivatePostgres(await freePort());
  server.start();
  const url = `postgresql://postgres@127.0.0.1:${server.port}/glimpse_private`;
  execFileSync('createdb', ['-h', '127.0.0.1', '-p', String(server.port), '-U', 'postgres', 'glimpse_private'], { stdio: 'pipe', timeout: 30_000 });
  await migrate({ databaseUrl: url, migrationsDir: path.join(REPO_ROOT, 'prisma', 'migrations'), log: () => undefined });
  return { ...server, url };
}
