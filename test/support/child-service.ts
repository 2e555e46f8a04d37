// The playbook service as a real process from its build (services/playbook/dist), for tests that
// kill it the hard way. The suite's test command builds first; a missing build fails here with
// what to run, rather than as a confusing test failure later.
import fs from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import { spawnService, type ServiceProcess } from './child-process';
import { serviceEnv } from './stack';

const REPO_ROOT = path.join(__dirname, '..', '..');
const PLAYBOOK_MAIN = path.join(REPO_ROOT, 'services', 'playbook', 'dist', 'main.js');
export function assertPlaybookBuild(): void {
  if (!fs.existsSync(PLAYBOOK_MAIN)) {
    throw new Error(
      `${path.relative(REPO_ROOT, PLAYBOOK_MAIN)} does not exist: this test runs the built service; run "npx turbo run build" first (npm test does)`,
    );
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer().once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

export interface ChildService {
  /** Its health, readiness and metrics endpoints. */
  url: string;
  /** What the process wrote, for failure messages. */
  output(): string;
  /** Set once the process has exited. */
  exit(): { code: number | null; signal: NodeJS.Signals | null } | undefined;
  /** Sends the signal and resolves when the process is gone. */
  kill(signal: NodeJS.Signals): Promise<void>;
}

export async function startChildPlaybookService(overrides: Record<string, string> = {}): Promise<ChildService> {
  assertPlaybookBuild();
  const port = await freePort();
  const proc: ServiceProcess = spawnService(
    'playbook',
    serviceEnv('playbook', { LOG_LEVEL: 'warn', HOST: '127.0.0.1', PLAYBOOK_PORT: String(port), ...overrides }),
  );
  const { child } = proc;
  return {
    url: `http://127.0.0.1:${port}`,
    output: () => proc.output().slice(-4000),
    exit: () => (child.exitCode === null && child.signalCode === null ? undefined : { code: child.exitCode, signal: child.signalCode }),
    async kill(signal) {
      await proc.stop(signal);
    },
  };
}
