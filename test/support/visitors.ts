// The visitors service for tests: in the test process (fresh consumer groups at the topics' end,
// so parallel files never share partitions or a backlog), or as a real child process from its build
// (services/visitors/dist) for tests that kill it the hard way; and a caller of its internal API.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import { DEV_INTERNAL_TOKEN } from '@glimpse/config';
import { INTERNAL_HEADERS } from '@glimpse/http';
import { createLogger } from '@glimpse/logging';
import { TOPICS } from '@glimpse/messaging';
import { loadConfig as visitorsConfig, startVisitorsService, type RunningVisitorsService } from '@glimpse/visitors';
import { childPath } from '../config';
import type { ChildService } from './child-service';
import { freshGroupAtEnd } from './kafka-helpers';
import { serviceEnv } from './stack';

const REPO_ROOT = path.join(__dirname, '..', '..');
const VISITORS_MAIN = path.join(REPO_ROOT, 'services', 'visitors', 'dist', 'main.js');

async function testGroups(overrides: Record<string, string>): Promise<Record<string, string>> {
  const groupId = overrides.VISITORS_GROUP_ID ?? (await freshGroupAtEnd(TOPICS.visitorsCollected, 'glimpse-visitors-test'));
  const accountsGroupId = overrides.VISITORS_ACCOUNTS_GROUP_ID ?? (await freshGroupAtEnd(TOPICS.accounts, `${groupId}-accounts`));
  return { VISITORS_GROUP_ID: groupId, VISITORS_ACCOUNTS_GROUP_ID: accountsGroupId };
}

/** In consumer groups of its own that start at the topics' current end (pass VISITORS_GROUP_ID to share one). */
export async function startTestVisitorsService(overrides: Record<string, string> = {}): Promise<RunningVisitorsService> {
  const env = serviceEnv('visitors', { VISITORS_PORT: '0', ...overrides, ...(await testGroups(overrides)) });
  return startVisitorsService(visitorsConfig(env), createLogger({ service: 'visitors', level: 'silent' }));
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

/** The built service as a child process; its groups as for startTestVisitorsService (pass the same VISITORS_GROUP_ID to a restart). */
export async function startChildVisitorsService(overrides: Record<string, string> = {}): Promise<ChildService & { groupId: string }> {
  if (!fs.existsSync(VISITORS_MAIN)) {
    throw new Error(
      `${path.relative(REPO_ROOT, VISITORS_MAIN)} does not exist: this test runs the built service; run "npx turbo run build" first (npm test does)`,
    );
  }
  const port = await freePort();
  const groups = await testGroups(overrides);
  const env = serviceEnv('visitors', { LOG_LEVEL: 'warn', HOST: '127.0.0.1', VISITORS_PORT: String(port), ...overrides, ...groups });
  const child = spawn(process.execPath, [VISITORS_MAIN], { env: { PATH: childPath(), ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (d) => (out += String(d)));
  child.stderr!.on('data', (d) => (out += String(d)));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    url: `http://127.0.0.1:${port}`,
    groupId: groups.VISITORS_GROUP_ID!,
    output: () => out.slice(-4000),
    exit: () => (child.exitCode === null && child.signalCode === null ? undefined : { code: child.exitCode, signal: child.signalCode }),
    async kill(signal) {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** Calls the service's internal API as the gateway does, for an account. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function visitorsApi(baseUrl: string, accountId: string, pathAndQuery: string, init: RequestInit = {}): Promise<{ status: number; body: any }> {
  const res = await fetch(`${baseUrl}${pathAndQuery}`, {
    ...init,
    headers: { [INTERNAL_HEADERS.token]: DEV_INTERNAL_TOKEN, [INTERNAL_HEADERS.account]: accountId, ...(init.headers as Record<string, string> | undefined) },
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}
