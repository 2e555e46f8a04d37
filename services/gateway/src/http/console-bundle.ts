// The console's browser modules (src/console/app/*.ts) bundled by esbuild into the one script
// index.html loads, console.js: one file, so the page's CSP (script-src 'self') and its single
// <script> stay as they are. The gateway's build writes it to dist/console/console.js (`node
// dist/http/console-bundle.js`), where the console router serves it as a static file; under src
// (jest, which runs the TypeScript), there is none, and the router bundles the modules at first
// request. esbuild is a devDependency: only those two paths load it, never the running image.
import fs from 'node:fs';
import path from 'node:path';

/** src/http and dist/http alike → the sources, which stay in src (tsc does not compile them). */
const SOURCES = path.join(__dirname, '..', '..', 'src', 'console', 'app');
export const CONSOLE_ENTRY = path.join(SOURCES, 'main.ts');
/** The browser's compiler settings (DOM types, ES2022), so esbuild reads the same as tsc checks. */
const TSCONFIG = path.join(__dirname, '..', '..', 'tsconfig.console.json');
/** dist/console/console.js once built. */
export const BUILT_CONSOLE = path.join(__dirname, '..', 'console', 'console.js');

const BANNER = '// The Glimpse web console, bundled by esbuild from services/gateway/src/console/app: edit those modules, not this file.';

/** The bundle's text. Not minified: what the browser runs reads like its sources (no source map to serve). */
export async function bundleConsole(): Promise<string> {
  const esbuild = await import('esbuild');
  const result = await esbuild.build({
    entryPoints: [CONSOLE_ENTRY],
    tsconfig: TSCONFIG,
    bundle: true,
    write: false,
    format: 'esm', // index.html loads it with type="module"
    platform: 'browser',
    target: 'es2022',
    charset: 'utf8',
    legalComments: 'none',
    banner: { js: BANNER },
    logLevel: 'silent',
  });
  const [output] = result.outputFiles;
  if (!output || result.outputFiles.length !== 1) throw new Error(`esbuild wrote ${result.outputFiles.length} files for the console, not one`);
  return output.text;
}

if (require.main === module) {
  bundleConsole().then(
    (text) => fs.writeFileSync(BUILT_CONSOLE, text),
    (err: unknown) => {
      console.error(`console bundle: ${err instanceof Error ? err.message : String(err)}`);
      process.exit(1);
    },
  );
}
