// A private Postgres for tests that stop or break it: initdb into a temporary directory and pg_ctl
// on a port of its own, so the machine's shared Postgres is never touched. Stopped by its own data
// directory (pg_ctl reads the postmaster's pid from it). As root, the server runs as `postgres`.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

function binDir(): string {
  const root = '/usr/lib/postgresql';
  const versions = fs.existsSync(root) ? fs.readdirSync(root).filter((v) => /^\d+$/.test(v)).sort((a, b) => Number(a) - Number(b)) : [];
  if (versions.length === 0) throw new Error(`no Postgres server binaries under ${root} (apt-get install postgresql)`);
  return path.join(root, versions.at(-1)!, 'bin');
}

function asOwner(command: string, args: string[]): void {
  const asRoot = process.getuid?.() === 0;
  execFileSync(asRoot ? 'runuser' : command, asRoot ? ['-u', 'postgres', '--', command, ...args] : args, { stdio: 'pipe' });
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

export interface PrivatePostgres {
  port: number;
  /** A URL of database `postgres` on this server. */
  url: string;
  start(): void;
  stop(): void;
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
  return {
    port,
    url: `postgresql://postgres@127.0.0.1:${port}/postgres`,
    start() {
      asOwner(pgCtl, ['start', '-w', '-D', data, '-l', path.join(dir, 'server.log'), '-o', `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off`]);
      running = true;
    },
    stop() {
      if (!running) return;
      asOwner(pgCtl, ['stop', '-w', '-D', data, '-m', 'fast']);
      running = false;
    },
    destroy() {
      try {
        this.stop();
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}
