// Runs a built service (dist/main.js) as a real child process, collecting its log lines.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { childPath } from '../config';

export interface ServiceProcess {
  child: ChildProcess;
  output(): string;
  /** Sends a signal and resolves with the exit code (or the signal name). */
  stop(signal?: NodeJS.Signals, timeoutMs?: number): Promise<number | string>;
}

const ROOT = path.resolve(__dirname, '..', '..');

export function spawnService(service: 'gateway' | 'playbook', env: Record<string, string>): ServiceProcess {
  const main = path.join(ROOT, 'services', service, 'dist', 'main.js');
  if (!fs.existsSync(main)) throw new Error(`${main} is missing: build first (npm test builds; or npx turbo run build)`);
  const child = spawn(process.execPath, [main], { env: { PATH: childPath(), ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (d) => (out += String(d)));
  child.stderr!.on('data', (d) => (out += String(d)));
  const exited = new Promise<number | string>((resolve) => child.on('exit', (code, signal) => resolve(code ?? signal ?? -1)));
  return {
    child,
    output: () => out,
    async stop(signal = 'SIGTERM', timeoutMs = 20_000) {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      const timer = new Promise<string>((resolve) => setTimeout(() => resolve('timeout'), timeoutMs).unref());
      const result = await Promise.race([exited, timer]);
      if (result === 'timeout') child.kill('SIGKILL');
      return result;
    },
  };
}

/** Waits until a log line matching `pattern` appears and returns the parsed line. */
export async function waitForLog(proc: ServiceProcess, pattern: RegExp, timeoutMs = 30_000): Promise<Record<string, unknown>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const line = proc
      .output()
      .split('\n')
      .find((l) => pattern.test(l));
    if (line) return JSON.parse(line) as Record<string, unknown>;
    if (Date.now() > deadline) throw new Error(`no log line matching ${pattern} within ${timeoutMs} ms; output:\n${proc.output().slice(-2000)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
