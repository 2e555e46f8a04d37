// The CLI is no back door. Its commands go through the gateway's operator API;
// only the imports reach a database, and then through the owning service's own code. This reads
// every source file of the CLI and fails on an import of a service (or of the identity and
// messaging libraries the gateway writes accounts and credentials with) outside those files.
import fs from 'node:fs';
import path from 'node:path';

const SRC = __dirname;
const ROOT = path.join(SRC, '..', '..', '..');

/** Which service packages a CLI file may import, and why. Everything else: none. */
const ALLOWED: Record<string, string[]> = {
  // import persons / companies / visitors / demo: the enrichment service's import.
  'commands/imports.ts': ['@glimpse/enrichment'],
  // import ip-ranges / locations and ip-datasets: the visitors service's own IP dataset code, which
  // opens its connection as glimpse_visitors itself (no db() of the CLI's: that one is enrichment's).
  'commands/ip-data.ts': ['@glimpse/visitors'],
  // network-types: the visitors service's overrides of network types, as glimpse_visitors (like the IP datasets they type).
  'commands/network-types.ts': ['@glimpse/visitors'],
};

/** The CLI may never write identity or publish on its own: those are the gateway's. */
const NEVER = ['@glimpse/auth', '@glimpse/messaging', '@glimpse/gateway', '@glimpse/playbook', '@glimpse/webhooks'];

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(full);
    return e.name.endsWith('.ts') && !e.name.endsWith('.test.ts') ? [full] : [];
  });
}

/** Every module a file imports or re-exports (static and dynamic). */
function specifiers(code: string): string[] {
  const found: string[] = [];
  for (const m of code.matchAll(/\b(?:from|import)(?:\s*\(|\s)\s*['"]([^'"]+)['"]/g)) found.push(m[1]!);
  return found;
}

const servicePackages = fs
  .readdirSync(path.join(ROOT, 'services'), { withFileTypes: true })
  .filter((e) => e.isDirectory() && fs.existsSync(path.join(ROOT, 'services', e.name, 'package.json')))
  .map((e) => (JSON.parse(fs.readFileSync(path.join(ROOT, 'services', e.name, 'package.json'), 'utf8')) as { name: string }).name);

describe('the CLI imports no service internals', () => {
  const files = sourceFiles(SRC);

  it('finds the CLI sources and the service packages (the check below checks something)', () => {
    expect(files.map((f) => path.relative(SRC, f))).toEqual(
      expect.arrayContaining(['main.ts', 'commands/playbooks.ts', 'commands/accounts.ts', 'commands/imports.ts']),
    );
    expect(servicePackages).toEqual(expect.arrayContaining(['@glimpse/gateway', '@glimpse/playbook', '@glimpse/enrichment', '@glimpse/visitors']));
    expect(specifiers("import { a } from '@glimpse/playbook';\nexport { b } from \"../x.js\";\nawait import('@glimpse/auth');")).toEqual([
      '@glimpse/playbook',
      '../x.js',
      '@glimpse/auth',
    ]);
  });

  it.each(files.map((f) => [path.relative(SRC, f).split(path.sep).join('/'), f]))('%s imports only the services it is allowed', (name, file) => {
    const imported = specifiers(fs.readFileSync(file, 'utf8'));
    const allowed = ALLOWED[name] ?? [];
    const services = imported.filter((s) => servicePackages.some((p) => s === p || s.startsWith(`${p}/`)));
    expect(services.filter((s) => !allowed.includes(s))).toEqual([]);
    expect(imported.filter((s) => NEVER.some((p) => s === p || s.startsWith(`${p}/`)))).toEqual([]);
    // No way around the package names: no relative path out of tools/cli.
    expect(imported.filter((s) => s.startsWith('.') && !path.resolve(path.dirname(file), s).startsWith(SRC))).toEqual([]);
  });

  it("depends (at run time) on no service but the imports' ones", () => {
    const { dependencies } = JSON.parse(fs.readFileSync(path.join(SRC, '..', 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
    const services = Object.keys(dependencies).filter((d) => servicePackages.includes(d) || NEVER.includes(d));
    expect(services.sort()).toEqual(['@glimpse/enrichment', '@glimpse/visitors']);
  });

  it('opens a database only in the commands that import through the owning service', () => {
    const withDb = files.filter((f) => /\bdb\(\s*'/.test(fs.readFileSync(f, 'utf8'))).map((f) => path.relative(SRC, f).split(path.sep).join('/'));
    expect(withDb).toContain('commands/imports.ts');
    expect(withDb.filter((f) => !(f in ALLOWED))).toEqual([]);
  });
});
