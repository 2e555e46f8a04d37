// Generates the Prisma client without downloading engines (blocked here): pointing
// PRISMA_SCHEMA_ENGINE_BINARY at any existing file makes `prisma generate` use its bundled Wasm.
const { execFileSync } = require('node:child_process');
const path = require('node:path');

function generate() {
  const root = path.resolve(__dirname, '..');
  const prismaBin = path.join(root, 'node_modules', '.bin', 'prisma');
  execFileSync(prismaBin, ['generate'], {
    cwd: root,
    stdio: ['ignore', 'inherit', 'inherit'],
    env: {
      ...process.env,
      PRISMA_SCHEMA_ENGINE_BINARY: process.env.PRISMA_SCHEMA_ENGINE_BINARY || process.execPath,
      PRISMA_HIDE_UPDATE_MESSAGE: '1',
      CHECKPOINT_DISABLE: '1',
    },
  });
}

module.exports = { generate };
if (require.main === module) generate();
