// The capacity model (scripts/capacity.js): docs/capacity.md is what the committed figures give,
// figures replace assumptions when a file is there, and the sizes move with the measured costs.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { REPO } from './lib/render';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const capacity = require('../../scripts/capacity.js');

describe('the capacity model', () => {
  it('when the figures are committed, then docs/capacity.md shows exactly what they give (npm run capacity -- --write)', () => {
    const doc = fs.readFileSync(path.join(REPO, 'docs', 'capacity.md'), 'utf8');
    expect(capacity.replaceSection(doc, capacity.render())).toBe(doc);
  });

  it('when a figure file is missing, then its inputs are assumptions that say so; when it is there, they come from it', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'figures-'));
    try {
      const without = capacity.inputs(dir);
      expect(without.playbookMsPerAppliedEvent.source).toMatch(/^assumed: no bench\/figures\/effects\.json/);
      expect(without.gatewayMsPerEvent.source).toMatch(/^assumed/);
      fs.writeFileSync(
        path.join(dir, 'effects.json'),
        JSON.stringify({ date: '2026-12-01T00:00:00Z', valid: true, summary: { cpuMsPerAppliedEvent: { playbook: 0.3, postgres: 0.2 } } }),
      );
      const measured = { cpu: { wallSec: 10, coresPct: { gateway: 50, kafka: 20, redis: 2 } }, requests: 10000 };
      fs.writeFileSync(
        path.join(dir, 'events.json'),
        JSON.stringify({ date: '2026-12-01T00:00:00Z', valid: true, machine: { cpuCount: 2 }, events: { measured } }),
      );
      const withFiles = capacity.inputs(dir);
      expect(withFiles.playbookMsPerAppliedEvent).toMatchObject({ value: 0.3, source: expect.stringMatching(/^bench\/figures\/effects\.json/) });
      expect(withFiles.postgresMsPerAppliedEvent.value).toBe(0.2);
      expect(withFiles.gatewayMsPerEvent).toMatchObject({ value: 0.5, source: expect.stringMatching(/^bench\/figures\/events\.json/) });
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('when the consumer gets cheaper per event, then fewer replicas and partitions are needed and the Postgres wall moves out', () => {
    const base = capacity.inputs();
    const cheaper = {
      ...base,
      playbookMsPerAppliedEvent: { ...base.playbookMsPerAppliedEvent, value: base.playbookMsPerAppliedEvent.value / 4 },
      postgresMsPerAppliedEvent: { ...base.postgresMsPerAppliedEvent, value: base.postgresMsPerAppliedEvent.value / 4 },
    };
    const before = capacity.sizeFor(10000, base);
    const after = capacity.sizeFor(10000, cheaper);
    expect(after.playbook).toBeLessThan(before.playbook);
    expect(after.partitions).toBeLessThanOrEqual(before.partitions);
    const wallAt = (i: unknown, w: string) => capacity.walls(i).find((x: { wall: string }) => x.wall === w).eventsPerSec;
    // How far it moves depends on the consumer's share of Postgres's work (small once measured: the effects bench).
    expect(wallAt(cheaper, 'postgres-primary')).toBeGreaterThan(wallAt(base, 'postgres-primary'));
  });
});
