#!/usr/bin/env node
// npm run migration:new -- NAME   writes the next migration from prisma/schema.prisma
// npm run migration:check         fails when the migrations do not produce exactly that schema
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { parseArgs } from 'node:util';
import { SCHEMA_PATH, diffDatabaseToSchema } from './schema-engine.mjs';

const require = createRequire(import.meta.url);
const { readEnv } = require('../infra/env.js');
const { ensurePostgres, databaseUrlFor } = require('../infra/up.js');
const MIGRATIONS_DIR = path.join(path.dirname(SCHEMA_PATH), 'migrations');
const NAME = /^[a-z0-9_]{1,60}$/;

const HELP = `Usage: npm run migration:new -- NAME      (NAME: lower case letters, digits and _)
       npm run migration:check

migration:new   applies every migration in prisma/migrations to a new scratch database, asks Prisma's
                schema engine (its Wasm build) for the SQL that takes it to prisma/schema.prisma, and
                writes it as prisma/migrations/<UTC timestamp>_NAME/migration.sql; then applies it and
                checks that nothing is left to do. Edit the schema, never the SQL of an applied migration.
migration:check the same scratch database, without writing: exits 1 and prints the SQL when the
                migrations and the schema disagree (the test suite runs it). --schema PATH checks
                another schema file instead of prisma/schema.prisma.
The scratch database lives beside DATABASE_URL's (default postgresql://postgres@127.0.0.1:5432/glimpse)
and is dropped at the end. Needs the workspace built (npm run build) for the migration runner.`;

function fail(message, code = 1) {
  process.stderr.write(`${message}\n`);
  process.exit(code);
}

function timestamp(date = new Date()) {
  return date.toISOString().replace(/[-:T]/g, '').slice(0, 14);
}

async function withScratchDatabase(fn) {
  const { databaseUrl } = readEnv();
  await ensurePostgres({ databaseUrl });
  const { default: pg } = await import('pg');
  const admin = new pg.Client({ connectionString: databaseUrlFor(databaseUrl, 'postgres') });
  await admin.connect();
  const name = `glimpse_scratch_${randomBytes(5).toString('hex')}`;
  await admin.query(`CREATE DATABASE "${name}"`);
  try {
    return await fn(databaseUrlFor(databaseUrl, name));
  } finally {
    await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`).catch(() => undefined);
    await admin.end();
  }
}

async function applyMigrations(databaseUrl) {
  let runner;
  try {
    runner = require('../../shared/db/dist/index.js');
  } catch {
    fail('the migration runner is not built: run npm run build first');
  }
  await runner.migrate({ databaseUrl, migrationsDir: MIGRATIONS_DIR });
}

async function check(schemaPath) {
  const schemaText = fs.readFileSync(schemaPath, 'utf8');
  const sql = await withScratchDatabase(async (url) => {
    await applyMigrations(url);
    return diffDatabaseToSchema({ databaseUrl: url, schemaText });
  });
  const shown = path.relative(process.cwd(), schemaPath);
  if (sql) fail(`prisma/migrations do not produce ${shown}; the missing step is:\n\n${sql}\nRun npm run migration:new -- <name> to write it.`);
  process.stderr.write(`migrations: they produce exactly ${shown}\n`);
}

async function create(name) {
  if (!NAME.test(name)) fail(`migration name must be 1 to 60 lower case letters, digits or _, got "${name}"`, 2);
  const written = await withScratchDatabase(async (url) => {
    await applyMigrations(url);
    const sql = await diffDatabaseToSchema({ databaseUrl: url });
    if (!sql) return null;
    const dir = path.join(MIGRATIONS_DIR, `${timestamp()}_${name}`);
    fs.mkdirSync(dir);
    fs.writeFileSync(path.join(dir, 'migration.sql'), sql.endsWith('\n') ? sql : `${sql}\n`);
    try {
      await applyMigrations(url);
      const rest = await diffDatabaseToSchema({ databaseUrl: url });
      if (rest) throw new Error(`after applying it, the engine still wants:\n${rest}`);
    } catch (err) {
      fs.rmSync(dir, { recursive: true, force: true });
      throw err;
    }
    return dir;
  });
  if (!written) process.stderr.write('migrations: the schema has no changes; nothing written\n');
  else process.stdout.write(`${path.relative(process.cwd(), path.join(written, 'migration.sql'))}\n`);
}

async function main() {
  let parsed;
  try {
    parsed = parseArgs({ options: { check: { type: 'boolean' }, schema: { type: 'string' }, help: { type: 'boolean', short: 'h' } }, allowPositionals: true });
  } catch (err) {
    fail(`${err.message}\n\n${HELP}`, 2);
  }
  const { values, positionals } = parsed;
  if (values.help) return void process.stdout.write(`${HELP}\n`);
  if (values.check) {
    if (positionals.length) fail('--check takes no name', 2);
    return check(path.resolve(values.schema ?? SCHEMA_PATH));
  }
  if (positionals.length !== 1) fail(HELP, 2);
  return create(positionals[0]);
}

main().catch((err) => fail(`migration: ${err.message}`));
