// What the image build relies on: a lockfile npm ci accepts, and an install layer that gets the
// manifest of every workspace (a missing one would fail the build only there).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
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

  it('when the images are built, then the install layer gets every workspace manifest, the lockfile and the CLI bin, and no code', () => {
    const dockerfile = fs.readFileSync(path.join(REPO, 'deploy', 'docker', 'Dockerfile'), 'utf8');
    // The manifests stage's RUN, run here on a copy of the repository's manifests and one source file.
    const script = /FROM build-base AS manifests\nCOPY \. \/src\nRUN ((?:.*\\\n)*.*)/.exec(dockerfile)![1]!.replace(/\\\n/g, ' ');
    const { workspaces } = JSON.parse(fs.readFileSync(path.join(REPO, 'package.json'), 'utf8')) as { workspaces: string[] };
    const manifests = [
      'package.json',
      'package-lock.json',
      ...workspaces.flatMap((glob) => {
        const dir = glob.replace(/\/\*$/, '');
        return fs
          .readdirSync(path.join(REPO, dir))
          .map((d) => `${dir}/${d}/package.json`)
          .filter((p) => fs.existsSync(path.join(REPO, p)));
      }),
    ];
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'manifests-'));
    try {
      const src = path.join(tmp, 'src');
      for (const f of [...manifests, 'tools/cli/bin/glimpse.js', 'services/gateway/src/app.ts']) {
        fs.mkdirSync(path.dirname(path.join(src, f)), { recursive: true });
        fs.copyFileSync(path.join(REPO, f), path.join(src, f));
      }
      execFileSync('sh', ['-c', script.replaceAll('/manifests', path.join(tmp, 'out')).replaceAll('/src', src)]);
      const out: string[] = [];
      const walk = (d: string) =>
        fs
          .readdirSync(d, { withFileTypes: true })
          .forEach((e) => (e.isDirectory() ? walk(path.join(d, e.name)) : out.push(path.relative(path.join(tmp, 'out'), path.join(d, e.name)))));
      walk(path.join(tmp, 'out'));
      expect(out.sort()).toEqual([...manifests, 'tools/cli/bin/glimpse.js'].sort());
    } finally {
      fs.rmSync(tmp, { recursive: true, force: true });
    }
    expect(manifests.length).toBeGreaterThanOrEqual(12);
    expect(dockerfile).toMatch(/npm ci --ignore-scripts/);
    expect(dockerfile).not.toMatch(/RUN[^\n]*npm install(?! --global)/);
  });
});
