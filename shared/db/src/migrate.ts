// Applies prisma/migrations/*/migration.sql with pg, keeping _prisma_migrations exactly as `prisma migrate deploy` would.
import { createHash, randomUUID } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import pg from 'pg';

export interface MigrateOptions {
  databaseUrl: string;
  /** Prisma's layout: one folder per migration, each holding migration.sql, applied in name order. */
  migrationsDir: string;
  log?: (message: string) => void;
}

// Prisma's own lock id and table DDL (sql-schema-connector, postgres flavour), so that Prisma and this
// runner exclude each other and `prisma migrate deploy` finds a history it recognises.
const PRISMA_LOCK_ID = 72707369;
const CREATE_MIGRATIONS_TABLE = `CREATE TABLE _prisma_migrations (
    id                      VARCHAR(36) PRIMARY KEY NOT NULL,
    checksum                VARCHAR(64) NOT NULL,
    finished_at             TIMESTAMPTZ,
    migration_name          VARCHAR(255) NOT NULL,
    logs                    TEXT,
    rolled_back_at          TIMESTAMPTZ,
    started_at              TIMESTAMPTZ NOT NULL DEFAULT now(),
    applied_steps_count     INTEGER NOT NULL DEFAULT 0
);`;

interface MigrationRow {
  migration_name: string;
  checksum: string;
  started_at: Date;
  finished_at: Date | null;
  rolled_back_at: Date | null;
  logs: string | null;
}

export function migrationChecksum(script: string | Buffer): string {
  return createHash('sha256').update(script).digest('hex');
}

// Like Prisma, a checksum recorded from the same script with other line endings (git autocrlf) still matches.
function checksumMatches(script: string, checksum: string): boolean {
  const variants = [script, script.replace(/\r\n/g, '\n'), script.replace(/\r?\n/g, '\r\n')];
  return variants.some((s) => migrationChecksum(s) === checksum);
}

export async function migrate({ databaseUrl, migrationsDir, log = () => {} }: MigrateOptions): Promise<{ applied: string[] }> {
  const entries = await readdir(migrationsDir, { withFileTypes: true });
  const names = entries
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .sort();
  const client = new pg.Client({ connectionString: databaseUrl });
  client.on('error', () => {}); // a dropped connection surfaces through the pending query instead
  await client.connect();
  try {
    // Session-level lock, released when the connection closes; a concurrent runner waits here.
    await client.query('SELECT pg_advisory_lock($1)', [PRISMA_LOCK_ID]);
    await initializeHistory(client);
    const { rows } = await client.query<MigrationRow>(
      'SELECT migration_name, checksum, started_at, finished_at, rolled_back_at, logs FROM _prisma_migrations ORDER BY started_at',
    );
    const failed = rows.filter((r) => r.finished_at === null && r.rolled_back_at === null);
    if (failed.length > 0) {
      const details = failed.map((r) => {
        const logs = r.logs?.trim() ? ` with the following logs:\n${r.logs.trim()}` : '';
        return `The \`${r.migration_name}\` migration started at ${r.started_at.toISOString()} failed${logs}`;
      });
      throw new Error(
        'P3009: migrate found failed migrations in the target database, new migrations will not be applied. ' +
          `Resolve them first (prisma migrate resolve).\n${details.join('\n')}`,
      );
    }
    const applied: string[] = [];
    for (const name of names) {
      const script = await readFile(path.join(migrationsDir, name, 'migration.sql'), 'utf8');
      const done = rows.find((r) => r.migration_name === name && r.rolled_back_at === null);
      if (done) {
        // Prisma only warns about an edited migration (`migrate status`/`dev`; `deploy` does not even look). We
        // refuse: an applied migration that no longer matches its file means the database is not what the repo says.
        if (!checksumMatches(script, done.checksum)) {
          throw new Error(`migration ${name} was modified after it was applied (checksum ${done.checksum} in _prisma_migrations differs from migration.sql)`);
        }
        continue;
      }
      log(`applying migration ${name}`);
      await applyOne(client, name, script);
      applied.push(name);
    }
    return { applied };
  } finally {
    await client.end(); // also releases the advisory lock
  }
}

// Prisma's `initialize`: create the history table, but refuse a non-empty schema that has none (P3005).
async function initializeHistory(client: pg.Client): Promise<void> {
  const { rows } = await client.query<{ table_name: string }>(
    "SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'",
  );
  if (rows.some((r) => r.table_name === '_prisma_migrations')) return;
  if (rows.length > 0) {
    throw new Error(
      `P3005: the database schema is not empty (tables: ${rows.map((r) => r.table_name).join(', ')}) and has no _prisma_migrations; baseline it first`,
    );
  }
  await client.query(CREATE_MIGRATIONS_TABLE);
}

// Prisma records the row, runs the script, then counts the step and sets finished_at. We do the same in one
// transaction: a failed script leaves neither schema changes nor a row, so fixing the file and rerunning is safe.
async function applyOne(client: pg.Client, name: string, script: string): Promise<void> {
  const id = randomUUID();
  await client.query('BEGIN');
  try {
    await client.query('INSERT INTO _prisma_migrations (id, checksum, started_at, migration_name) VALUES ($1, $2, clock_timestamp(), $3)', [
      id,
      migrationChecksum(script),
      name,
    ]);
    await client.query(script);
    await client.query('UPDATE _prisma_migrations SET applied_steps_count = applied_steps_count + 1, finished_at = clock_timestamp() WHERE id = $1', [id]);
    await client.query('COMMIT');
  } catch (err) {
    await client.query('ROLLBACK').catch(() => {});
    throw new Error(`migration ${name} failed and was rolled back: ${(err as Error).message}`, { cause: err });
  }
}

/** Creates the database named in the URL if it does not exist (via the server's `postgres` database). */
export async function ensureDatabase(databaseUrl: string): Promise<{ created: boolean }> {
  const url = new URL(databaseUrl);
  const name = decodeURIComponent(url.pathname.slice(1));
  if (!name) throw new Error('ensureDatabase: the database URL names no database');
  url.pathname = '/postgres';
  const client = new pg.Client({ connectionString: url.toString() });
  client.on('error', () => {});
  await client.connect();
  try {
    const exists = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (exists.rowCount) return { created: false };
    await client.query(`CREATE DATABASE ${client.escapeIdentifier(name)}`);
    return { created: true };
  } catch (err) {
    // Another process created it between our check and CREATE DATABASE.
    const code = (err as { code?: string }).code;
    if (code === '42P04' || code === '23505') return { created: false };
    throw err;
  } finally {
    await client.end();
  }
}
