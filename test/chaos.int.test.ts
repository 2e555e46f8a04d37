// npm run chaos in its short mode, as part of the suite: its own 3-broker Kafka cluster, private
// Postgres and Redis, 2 gateways, 3 playbook, 2 enrichment, 2 visitors and 2 webhooks replicas (with
// a local receiver for the load account's effects and one that never answers for a second
// account), one cycle of faults under load, the fuzzer, then the exact checks. The suite's test
// command builds first; this runs dist/.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '..');
const RUN = path.join(ROOT, 'scripts', 'chaos', 'run.js');

interface ChaosResult {
  ok: boolean;
  events: { sent: number; acked: number; inKafka: number };
  lookups: { total: number };
  collect: { sent: number; acked: number; pageViews: number; visitors: number };
  webhooks: {
    effects: number;
    delivered: number;
    lost: number;
    badSignatures: number;
    hanging: { requests: number; peakOpen: number; peakRecorded: number };
    fairness: { backlogSeconds: number };
  };
  fuzzer: { sent: number };
  faults: { what: string }[];
  checks: { name: string; ok: boolean; detail: string }[];
}

let child: ChildProcess | undefined;

afterAll(async () => {
  // A run cut short stops what it started on SIGTERM.
  if (child && child.exitCode === null && child.signalCode === null) {
    const gone = new Promise((r) => child!.once('exit', r));
    child.kill('SIGTERM');
    await gone;
  }
});

describe('npm run chaos -- --short', () => {
  it(
    'when one cycle of faults hits the replicated stack under load and the fuzzer runs, then every check passes',
    async () => {
      const out = path.join(os.tmpdir(), `glimpse-chaos-${process.pid}.json`);
      fs.rmSync(out, { force: true });
      child = spawn(process.execPath, [RUN, '--short', '--no-build', '--json', out], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
      let output = '';
      child.stdout!.on('data', (d) => (output += String(d)));
      child.stderr!.on('data', (d) => (output += String(d)));
      const code = await new Promise<number | null>((resolve) => child!.once('exit', (c) => resolve(c)));
      if (!fs.existsSync(out)) throw new Error(`the chaos run wrote no result (exit ${code}):\n${output.slice(-6000)}`);
      const result = JSON.parse(fs.readFileSync(out, 'utf8')) as ChaosResult;
      fs.rmSync(out, { force: true });

      expect({ failed: result.checks.filter((c) => !c.ok), table: result.ok ? '' : output.slice(-6000) }).toEqual({ failed: [], table: '' });
      expect(code).toBe(0);
      // It did what it says: load through the faults, the fuzzer, and every kind of fault.
      expect(result.events.acked).toBe(result.events.sent);
      expect(result.events.acked).toBeGreaterThan(300);
      expect(result.lookups.total).toBeGreaterThan(50);
      // The tag's page views went through the faults too, and every visitor was compared with a replay.
      expect(result.collect.acked).toBe(result.collect.sent);
      expect(result.collect.acked).toBeGreaterThan(300);
      expect(result.collect.pageViews).toBe(result.collect.acked);
      expect(result.collect.visitors).toBe(20);
      expect(result.fuzzer.sent).toBe(2000);
      // The load's playbook effects went out as signed webhooks through the faults, none lost; the
      // second account's endpoints hung all along and held at most their share of the slots.
      expect(result.webhooks.effects).toBeGreaterThan(300);
      expect(result.webhooks.delivered).toBe(result.webhooks.effects);
      expect(result.webhooks.lost).toBe(0);
      expect(result.webhooks.badSignatures).toBe(0);
      expect(result.webhooks.hanging.requests).toBeGreaterThan(4);
      expect(result.webhooks.hanging.peakOpen).toBeLessThanOrEqual(4);
      expect(result.webhooks.hanging.peakRecorded).toBeLessThanOrEqual(4);
      // The fairness check had something to judge: the healthy endpoint had deliveries waiting.
      expect(result.webhooks.fairness.backlogSeconds).toBeGreaterThan(1);
      const kinds = new Set(result.faults.map((f) => f.what));
      for (const kind of [
        'SIGKILL playbook replica',
        'SIGKILL visitors replica',
        'SIGKILL webhooks replica',
        'playbook replica joins',
        'playbook replica leaves (SIGTERM)',
        'SIGKILL gateway',
        'SIGKILL Kafka broker',
        'Kafka broker restarted',
        'Redis stopped',
        'Redis started again',
        'SIGKILL Redis master',
        'Redis replica promoted',
        'Redis node restarted',
        'Postgres stopped (immediate shutdown)',
        'Postgres hung (SIGSTOP of the postmaster and its processes)',
      ]) {
        expect(kinds).toContain(kind);
      }
    },
    20 * 60_000,
  );
});
