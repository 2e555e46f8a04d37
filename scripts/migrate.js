// Creates the database if needed and applies prisma/migrations (run after `npm run build`).
const path = require('node:path');

// Inside the migrate image DATABASE_URL is always set; locally the config module's default applies.
const DEFAULT_URL = require('../shared/config/dist/defaults.json').DATABASE_URL;

async function main() {
  if (process.argv.includes('--help') || process.argv.includes('-h')) {
    process.stderr.write(
      'usage: node scripts/migrate.js\n' + `  Applies prisma/migrations to DATABASE_URL (default ${DEFAULT_URL}), creating the database if missing.\n`,
    );
    return;
  }
  const { ensureDatabase, migrate } = require('../shared/db/dist/index.js');
  const databaseUrl = process.env.DATABASE_URL || DEFAULT_URL;
  const migrationsDir = path.join(__dirname, '..', 'prisma', 'migrations');
  await ensureDatabase(databaseUrl);
  const { applied } = await migrate({ databaseUrl, migrationsDir, log: (m) => process.stderr.write(`${m}\n`) });
  process.stderr.write(applied.length ? `migrations: applied ${applied.length} (${applied.join(', ')})\n` : 'migrations: up to date\n');
}

main().catch((err) => {
  const hint = err && err.code === 'MODULE_NOT_FOUND' ? ' (build the workspace first: npm run build)' : '';
  process.stderr.write(`migrations failed: ${err && err.message ? err.message : err}${hint}\n`);
  process.exitCode = 1;
});
