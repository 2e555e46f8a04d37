// Integration tests for the migration runner against a real Postgres, one throw-away database per test.
import { randomBytes } from 'node:crypto';
import { mkdtemp, mkdir, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { testDatabaseUrl } from '../../../test/config';
import { ensureDatabase, migrate, migrationChecksum } from './migrate';

const migrationsDir = path.resolve(__dirname, '../../../prisma/migrations');

function urlFor(database: string): string {
  const url = new URL(testDatabaseUrl());
  url.pathname = `/${database}`;
  return url.toString();
}

async function query<R extends pg.QueryResultRow>(databaseUrl: string, sql: string, params: unknown[] = []): Promise<R[]> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    return (await client.query<R>(sql, params)).rows;
  } finally {
    await client.end();
  }
}

async function withTempDb(fn: (databaseUrl: string) => Promise<void>): Promise<void> {
  const name = `glimpse_migrate_${randomBytes(6).toString('hex')}`;
  const databaseUrl = urlFor(name);
  expect(await ensureDatabase(databaseUrl)).toEqual({ created: true });
  try {
    await fn(databaseUrl);
  } finally {
    await query(urlFor('postgres'), `DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  }
}

async function migrationNames(): Promise<string[]> {
  const entries = await readdir(migrationsDir, { withFileTypes: true });
  return entries
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .sort();
}

interface Row {
  id: string;
  checksum: string;
  migration_name: string;
  started_at: Date;
  finished_at: Date | null;
  rolled_back_at: Date | null;
  logs: string | null;
  applied_steps_count: number;
}
const historyOf = (url: string) => query<Row>(url, 'SELECT * FROM _prisma_migrations ORDER BY migration_name');

describe('migrate', () => {
  it('applies every migration to a fresh database and records it as Prisma does', () =>
    withTempDb(async (databaseUrl) => {
      const names = await migrationNames();
      expect(names.length).toBeGreaterThan(0);
      expect(await migrate({ databaseUrl, migrationsDir })).toEqual({ applied: names });

      const rows = await historyOf(databaseUrl);
      expect(rows.map((r) => r.migration_name)).toEqual(names);
      for (const row of rows) {
        const file = await readFile(path.join(migrationsDir, row.migration_name, 'migration.sql'));
        expect(row.checksum).toBe(migrationChecksum(file));
        expect(row.checksum).toMatch(/^[0-9a-f]{64}$/);
        expect(row.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
        expect(row.finished_at).toBeInstanceOf(Date);
        expect(row.finished_at!.getTime()).toBeGreaterThanOrEqual(row.started_at.getTime());
        expect(row).toMatchObject({ applied_steps_count: 1, logs: null, rolled_back_at: null });
      }
      // Prisma's exact history table shape.
      const columns = await query(
        databaseUrl,
        `SELECT column_name, data_type, character_maximum_length AS len, is_nullable, column_default
           FROM information_schema.columns WHERE table_name = '_prisma_migrations' ORDER BY ordinal_position`,
      );
      expect(columns).toEqual([
        { column_name: 'id', data_type: 'character varying', len: 36, is_nullable: 'NO', column_default: null },
        { column_name: 'checksum', data_type: 'character varying', len: 64, is_nullable: 'NO', column_default: null },
        { column_name: 'finished_at', data_type: 'timestamp with time zone', len: null, is_nullable: 'YES', column_default: null },
        { column_name: 'migration_name', data_type: 'character varying', len: 255, is_nullable: 'NO', column_default: null },
        { column_name: 'logs', data_type: 'text', len: null, is_nullable: 'YES', column_default: null },
        { column_name: 'rolled_back_at', data_type: 'timestamp with time zone', len: null, is_nullable: 'YES', column_default: null },
        { column_name: 'started_at', data_type: 'timestamp with time zone', len: null, is_nullable: 'NO', column_default: 'now()' },
        { column_name: 'applied_steps_count', data_type: 'integer', len: null, is_nullable: 'NO', column_default: '0' },
      ]);

      // A second run finds nothing to do.
      expect(await migrate({ databaseUrl, migrationsDir })).toEqual({ applied: [] });
      expect(await historyOf(databaseUrl)).toEqual(rows);
    }));

  it('refuses an applied migration whose file changed, naming it', () =>
    withTempDb(async (databaseUrl) => {
      await migrate({ databaseUrl, migrationsDir });
      const [first] = await migrationNames();
      await query(databaseUrl, 'UPDATE _prisma_migrations SET checksum = $1 WHERE migration_name = $2', ['0'.repeat(64), first]);
      await expect(migrate({ databaseUrl, migrationsDir })).rejects.toThrow(`migration ${first} was modified`);
    }));

  it('is blocked by a previously failed migration (P3009), naming it', () =>
    withTempDb(async (databaseUrl) => {
      await migrate({ databaseUrl, migrationsDir });
      await query(databaseUrl, `INSERT INTO _prisma_migrations (id, checksum, migration_name, logs) VALUES ($1, $2, 'x_failed_one', 'boom')`, [
        '00000000-0000-4000-8000-000000000000',
        '0'.repeat(64),
      ]);
      await expect(migrate({ databaseUrl, migrationsDir })).rejects.toThrow(/P3009[\s\S]*`x_failed_one`[\s\S]*boom/);
    }));

  it('rolls a failing migration back completely and records nothing for it', () =>
    withTempDb(async (databaseUrl) => {
      const dir = await mkdtemp(path.join(os.tmpdir(), 'glimpse-migrations-'));
      try {
        await mkdir(path.join(dir, '1_ok'));
        await writeFile(path.join(dir, '1_ok', 'migration.sql'), 'CREATE TABLE "a" ("id" INTEGER NOT NULL);');
        await mkdir(path.join(dir, '2_bad'));
        await writeFile(path.join(dir, '2_bad', 'migration.sql'), 'CREATE TABLE "b" ("id" INTEGER);\nSELECT * FROM "missing";');
        await expect(migrate({ databaseUrl, migrationsDir: dir })).rejects.toThrow(/migration 2_bad failed[\s\S]*missing/);
        expect((await historyOf(databaseUrl)).map((r) => r.migration_name)).toEqual(['1_ok']);
        expect(await query(databaseUrl, "SELECT to_regclass('b') AS b")).toEqual([{ b: null }]);
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    }));

  it('applies each migration exactly once when two runners race', () =>
    withTempDb(async (databaseUrl) => {
      const names = await migrationNames();
      const results = await Promise.all([migrate({ databaseUrl, migrationsDir }), migrate({ databaseUrl, migrationsDir })]);
      expect(results.flatMap((r) => r.applied).sort()).toEqual(names);
      const counts = await query(databaseUrl, 'SELECT migration_name, count(*)::int AS n FROM _prisma_migrations GROUP BY 1 ORDER BY 1');
      expect(counts).toEqual(names.map((migration_name) => ({ migration_name, n: 1 })));
    }));

  it('ensureDatabase leaves an existing database alone', () =>
    withTempDb(async (databaseUrl) => {
      expect(await ensureDatabase(databaseUrl)).toEqual({ created: false });
    }));
});
