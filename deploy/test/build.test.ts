// What the image build relies on: a lockfile npm ci accepts, and a Dockerfile that copies the
// manifest of every workspace before `npm ci` (a missing one would fail the build only there).
import fs from 'node:fs';
import path from 'node:path';
import { REPO } from './lib/render';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { findMissing } = require('../../scripts/lockfile.js') as { findMissing: (lock?: unknown) => { name: string; parent: string }[] };

describe('the build', () => {
  it('when npm ci reads package-lock.json, then every locked package finds each dependency it names, for every platform', () => {
    expect(findMissing()).toEqual([]);
  });

  it('when a platform build is missing from a lockfile, then the check names it and its parent', () => {
    const lock = {
      packages: {
        '': { dependencies: { tool: '1.0.0' } },
        'node_modules/tool': { version: '1.0.0', optionalDependencies: { 'tool-linux-x64': '1.0.0', 'tool-darwin-arm64': '1.0.0' } },
        'node_modules/tool-linux-x64': { version: '1.0.0' },
        'services/a': { dependencies: { nested: '2.0.0' } },
        'services/a/node_modules/nested': { version: '2.0.0' },
      },
    };
    expect(findMissing(lock)).toEqual([{ parent: 'node_modules/tool', parentVersion: '1.0.0', name: 'tool-darwin-arm64', optional: true }]);
  });

  it('when the images are built, then the Dockerfile copies every workspace manifest before npm ci', () => {
    const dockerfile = fs.readFileSync(path.join(REPO, 'deploy', 'docker', 'Dockerfile'), 'utf8');
    const { workspaces } = JSON.parse(fs.readFileSync(path.join(REPO, 'package.json'), 'utf8')) as { workspaces: string[] };
    const manifests = workspaces.flatMap((glob) => {
      const dir = glob.replace(/\/\*$/, '');
      return fs.readdirSync(path.join(REPO, dir)).map((d) => `${dir}/${d}/package.json`).filter((p) => fs.existsSync(path.join(REPO, p)));
    });
    expect(manifests.length).toBeGreaterThanOrEqual(11);
    const copied = [...dockerfile.matchAll(/^COPY (\S+\/package\.json) /gm)].map((m) => m[1]);
    expect(manifests.filter((m) => !copied.includes(m))).toEqual([]);
    expect(dockerfile).toMatch(/npm ci --ignore-scripts/);
    expect(dockerfile).not.toMatch(/npm install --ignore-scripts|RUN[^\n]*npm install(?! --global)/);
  });
});
