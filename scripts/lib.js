// Small helpers shared by the root scripts (start, test): run a command, build the workspace.
'use strict';
const { spawn } = require('node:child_process');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..');

/** Runs a command with inherited output; resolves with its exit code. */
function run(command, args, options = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: ROOT, stdio: 'inherit', ...options });
    child.on('error', reject);
    child.on('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  });
}

async function mustRun(command, args, options) {
  const code = await run(command, args, options);
  if (code !== 0) throw new Error(`${command} ${args.join(' ')} exited with ${code}`);
}

/** Generates the Prisma client and builds every workspace (turbo caches unchanged packages). */
async function build() {
  require('./prisma-generate.js').generate();
  await mustRun(path.join(ROOT, 'node_modules', '.bin', 'turbo'), ['run', 'build', '--output-logs=errors-only', '--log-prefix=none']);
}

module.exports = { ROOT, run, mustRun, build };
