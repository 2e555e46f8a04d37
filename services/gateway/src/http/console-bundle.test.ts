// The console's modules as the browser gets them: one self-contained script that the page's CSP
// (script-src 'self', no 'unsafe-eval') runs, with a route for every link of the page's navigation.
import fs from 'node:fs';
import path from 'node:path';
import { bundleConsole } from './console-bundle';

const INDEX_HTML = path.join(__dirname, '..', 'console', 'index.html');

let bundle: string;
beforeAll(async () => {
  bundle = await bundleConsole();
}, 30_000);

describe('console bundle', () => {
  it('when the modules are bundled, then one script remains that imports and exports nothing', () => {
    expect(bundle.length).toBeGreaterThan(10_000);
    // A statement, not an object's `import:` key (a line of its own once the sources are formatted).
    expect(bundle.split('\n').filter((line) => /^(?:import|export)\b(?!\s*:)/.test(line.trimStart()))).toEqual([]);
    expect(bundle).not.toMatch(/\bimport\s*\(/);
  });

  it('when the modules are bundled, then nothing in them needs unsafe-eval or inline markup', () => {
    expect(bundle).not.toMatch(/\beval\s*\(|\bnew Function\b/);
    expect(bundle).not.toMatch(/\.innerHTML\s*=|\.outerHTML\s*=|insertAdjacentHTML|document\.write/);
  });

  it('when index.html links a page, then the router has that page', () => {
    const links = [...fs.readFileSync(INDEX_HTML, 'utf8').matchAll(/href="#\/([a-z-]+)"/g)].map((m) => m[1]);
    expect(links.length).toBeGreaterThan(10);
    for (const name of links) expect(bundle).toContain(`["${name}", {`);
  });
});
