// A Postgres of the test's own (initdb into a temp dir, pg_ctl on a free port, as the postgres
// user), migrated like the real one, that a test may stop, start and freeze. The machine's
// Postgres is never touched: every signal goes to the pid this cluster recorded.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { migrate } from '@glimpse/db';

const REPO_ROOT = path.join(__dirname, '..', '..', '..');

function postgresBin(): string {
  const root = '/usr/lib/postgresql';
  const versions = fs.existsSync(root) ? fs.readdirSync(root).sort((a, b) => Number(b) - Number(a)) : [];
  const bin = versions.map((v) => path.join(root, v, 'bin')).find((b) => fs.existsSync(path.join(b, 'pg_ctl')));
  if (!bin) throw new Error('no Postgres binaries under /usr/lib/postgresql (apt-get install postgresql)');
  return bin;
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer().once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

export interface PrivatePostgres {
  url: string;
  /** The postmaster's pid, from postmaster.pid. */
  pid(): number;
  start(): void;
  /** Immediate shutdown: connections are cut, new ones refused. */
  stop(): void;
  /** SIGSTOP / SIGCONT of the postmaster: it accepts connections and answers nothing. */
  freeze(): void;
  thaw(): void;
  destroy(): void;
}

export async function startPrivatePostgres(): Promise<PrivatePostgres> {
  const bin = postgresBin();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'glimpse-pg-'));
  const data = path.join(dir, 'data');
  const port = await freePort();
  // initdb refuses to run as root: the cluster belongs to the postgres user.
  const asPostgres = (cmd: string, args: string[]) => {
    const [file, all] = process.getuid?.() === 0 ? ['runuser', ['-u', 'postgres', '--', path.join(bin, cmd), ...args]] : [path.join(bin, cmd), args];
    execFileSync(file as string, all as string[], { stdio: 'pipe', timeout: 60_000 });
  };
  if (process.getuid?.() === 0) execFileSync('chown', ['postgres', dir]);
  asPostgres('initdb', ['-D', data, '-U', 'postgres', '-A', 'trust', '--no-sync', '-E', 'UTF8']);
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=40`;
  const start = () => asPostgres('pg_ctl', ['-D', data, '-o', options, '-l', path.join(dir, 'log'), '-w', '-t', '30', 'start']);
  const pid = () => Number(fs.readFileSync(path.join(data, 'postmaster.pid'), 'utf8').split('\n')[0]);
  let frozen = false;
  start();
  const url = `postgresql://postgres@127.0.0.1:${port}/glimpse_private`;
  asPostgres('createdb', ['-h', '127.0.0.1', '-p', String(port), '-U', 'postgres', 'glimpse_private']);
  await migrate({ databaseUrl: url, migrationsDir: path.join(REPO_ROOT, 'prisma', 'migrations'), log: () => undefined });
  return {
    url,
    pid,
    start,
    stop() {
      if (frozen) this.thaw();
      asPostgres('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']);
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
        if (fs.existsSync(path.join(data, 'postmaster.pid'))) this.stop();
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}
