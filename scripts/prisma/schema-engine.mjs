// Prisma's own schema engine, in its Wasm build, run over our Postgres through the pg driver
// adapter: it writes migration SQL from prisma/schema.prisma (npm run migration:new) and proves
// that the migrations produce exactly that schema (npm run migration:check). The native engine
// cannot be downloaded here, and Prisma 7 has no JavaScript migration engine.
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const { PrismaPg } = require('@prisma/adapter-pg');
const { ColumnTypeEnum, bindMigrationAwareSqlAdapterFactory } = require('@prisma/driver-adapter-utils');

export const SCHEMA_PATH = path.resolve(import.meta.dirname ?? path.dirname(new URL(import.meta.url).pathname), '..', '..', 'prisma', 'schema.prisma');
/** What the engine writes for a migration with nothing to do (trimmed: no regex to backtrack over whitespace). */
const isEmptyMigration = (text) => ['', '-- This is an empty migration.'].includes(text.trim());

// The engine panics on a Rust unwrap with nothing but "unreachable" unless this registry exists.
globalThis.PRISMA_WASM_PANIC_REGISTRY ??= {
  set_message(message) {
    process.stderr.write(`prisma schema engine panicked: ${message}\n`);
  },
};

/**
 * The describer reads pg_catalog columns of Postgres' one-byte "char" type, which adapter-pg
 * refuses (UnsupportedNativeDataType) and the engine wants as a Character column. Both ends are
 * mended on the adapter's prototype, for this process only (dev tooling; the services never load this).
 */
function readCharColumnsAsCharacters(adapter) {
  const proto = Object.getPrototypeOf(Object.getPrototypeOf(adapter));
  if (proto.glimpseCharColumns) return;
  proto.glimpseCharColumns = true;
  const performIO = proto.performIO;
  proto.performIO = async function performIOWithChars(...args) {
    const result = await performIO.apply(this, args);
    const chars = [];
    result.fields.forEach((field, i) => {
      if (field.dataTypeID === 18) {
        chars.push(i);
        field.dataTypeID = 25; // read as text
      }
    });
    if (chars.length > 0) Object.defineProperty(result.rows, 'charColumns', { value: chars });
    return result;
  };
  const queryRaw = proto.queryRaw;
  proto.queryRaw = async function queryRawWithChars(...args) {
    const result = await queryRaw.apply(this, args);
    for (const i of result.rows.charColumns ?? []) result.columnTypes[i] = ColumnTypeEnum.Character;
    return result;
  };
}

let wasm;
function loadWasm() {
  // One instance per process: a second instantiation over the same glue module breaks the first.
  return (wasm ??= instantiateWasm());
}

async function instantiateWasm() {
  // The package's exports hide package.json; its Node entry sits beside the files we need.
  const dir = path.dirname(require.resolve('@prisma/schema-engine-wasm'));
  // The package's entry imports the .wasm as a module, which Node 20 refuses: instantiate it by hand.
  const bg = await import(path.join(dir, 'schema_engine_bg.js'));
  const { instance } = await WebAssembly.instantiate(fs.readFileSync(path.join(dir, 'schema_engine_bg.wasm')), { './schema_engine_bg.js': bg });
  bg.__wbg_set_wasm(instance.exports);
  instance.exports.__wbindgen_start?.();
  return bg;
}

/**
 * The SQL that takes the database at `databaseUrl` to the schema in `schemaText`, or '' when they
 * already agree.
 */
export async function diffDatabaseToSchema({ databaseUrl, schemaText = fs.readFileSync(SCHEMA_PATH, 'utf8') }) {
  const bg = await loadWasm();
  const factory = new PrismaPg({ connectionString: databaseUrl, max: 2 });
  const probe = await factory.connect();
  readCharColumnsAsCharacters(probe);
  await probe.dispose();
  const files = [{ path: 'schema.prisma', content: schemaText }];
  const engine = await bg.SchemaEngine.new({ datamodels: [['schema.prisma', schemaText]] }, () => {}, bindMigrationAwareSqlAdapterFactory(factory));
  try {
    const { stdout } = await engine.diff({
      from: { tag: 'schemaDatasource', files, configDir: path.dirname(SCHEMA_PATH) },
      to: { tag: 'schemaDatamodel', files },
      script: true,
      exitCode: null,
      filters: { externalTables: [], externalEnums: [] },
    });
    return isEmptyMigration(stdout ?? '') ? '' : stdout;
  } finally {
    engine.free();
  }
}
