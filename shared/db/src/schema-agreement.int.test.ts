// Proves prisma/schema.prisma (its full DMMF) and the database that our migrations build agree, fact by fact.
import { randomBytes, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { get_dmmf } from '@prisma/prisma-schema-wasm';
import pg from 'pg';
import { testDatabaseUrl } from '../../../test/config';
import { createDb, type Db } from './client';
import { ensureDatabase, migrate } from './migrate';

const root = path.resolve(__dirname, '../../..');

// The parts of Prisma's DMMF this test reads (the wasm build is the exact one the installed CLI bundles).
type DefaultValue = string | number | boolean | unknown[] | { name: string; args: unknown[] };
interface Field {
  name: string; dbName?: string | null; kind: 'scalar' | 'enum' | 'object' | 'unsupported'; type: string;
  isList: boolean; isRequired: boolean; nativeType?: [string, string[]] | null; default?: DefaultValue;
  relationFromFields?: string[]; relationToFields?: string[]; relationOnDelete?: string; relationOnUpdate?: string;
}
interface Model { name: string; dbName: string | null; fields: Field[] }
interface Index { model: string; type: 'id' | 'unique' | 'normal' | 'fulltext'; dbName?: string; fields: { name: string; sortOrder?: 'asc' | 'desc' }[] }
interface Enum { name: string; dbName?: string | null; values: { name: string; dbName: string | null }[] }
interface Datamodel { models: Model[]; enums: Enum[]; indexes: Index[] }

function loadDatamodel(): Datamodel {
  const prismaSchema = readFileSync(path.join(root, 'prisma/schema.prisma'), 'utf8');
  return (JSON.parse(get_dmmf(JSON.stringify({ prismaSchema }))) as { datamodel: Datamodel }).datamodel;
}

// What the migration adds on purpose that the schema does not express (the partial index would need Prisma's
// `partialIndexes` preview feature, CHECK constraints are not supported); anything else extra is a failure,
// and so is an entry here that the database lacks.
const ALLOWED_EXTRAS = [
  `unique index enrollments.enrollments_one_active_key (playbook_id, email) WHERE (status = 'active'::text)`,
  `check enrollments.enrollments_status_check CHECK ((status = ANY (ARRAY['active'::text, 'stopped'::text])))`,
  `check playbook_effects.playbook_effects_action_check CHECK ((action = ANY (ARRAY['started'::text, 'stopped'::text])))`,
];

// Postgres types Prisma emits, in format_type() spelling. Unknown ones throw, so they cannot pass silently.
const SCALAR_TYPES: Record<string, string> = {
  String: 'text', Boolean: 'boolean', Int: 'integer', BigInt: 'bigint', Float: 'double precision',
  Decimal: 'numeric(65,30)', DateTime: 'timestamp(3) without time zone', Json: 'jsonb', Bytes: 'bytea',
};
const NATIVE_TYPES: Record<string, (args: string[]) => string> = {
  Uuid: () => 'uuid', Text: () => 'text', Integer: () => 'integer', SmallInt: () => 'smallint', BigInt: () => 'bigint',
  Boolean: () => 'boolean', JsonB: () => 'jsonb', Json: () => 'json', Date: () => 'date', DoublePrecision: () => 'double precision',
  Timestamptz: ([p]) => (p ? `timestamp(${p}) with time zone` : 'timestamp with time zone'),
  Timestamp: ([p]) => (p ? `timestamp(${p}) without time zone` : 'timestamp without time zone'),
  VarChar: ([n]) => (n ? `character varying(${n})` : 'character varying'),
  Decimal: ([p, s]) => (p ? `numeric(${p},${s ?? 0})` : 'numeric'),
};
const REFERENTIAL_ACTIONS: Record<string, string> = { Cascade: 'CASCADE', Restrict: 'RESTRICT', NoAction: 'NO ACTION', SetNull: 'SET NULL', SetDefault: 'SET DEFAULT' };

const ident = (name: string) => (/^[a-z_][a-z0-9_$]*$/.test(name) ? name : `"${name.replace(/"/g, '""')}"`);
// Prisma's default constraint names: table_columns_suffix, cut to Postgres' 63-character limit.
const defaultName = (table: string, columns: string[], suffix: string) => [table, ...columns].join('_').slice(0, 63 - suffix.length) + suffix;

/** Every table, column, key, index, relation and enum the schema implies, as comparable one-line facts. */
function schemaFacts(dm: Datamodel): Set<string> {
  const facts = new Set<string>();
  const model = (name: string) => dm.models.find((m) => m.name === name) ?? fail(`unknown model ${name}`);
  const table = (m: Model) => m.dbName ?? m.name;
  const column = (m: Model, field: string) => {
    const f = m.fields.find((x) => x.name === field) ?? fail(`unknown field ${m.name}.${field}`);
    return f.dbName ?? f.name;
  };
  for (const e of dm.enums) facts.add(`enum ${e.dbName ?? e.name} (${e.values.map((v) => v.dbName ?? v.name).join(', ')})`);
  for (const m of dm.models) {
    const t = table(m);
    facts.add(`table ${t}`);
    for (const f of m.fields) {
      if (f.kind === 'scalar' || f.kind === 'enum') {
        const base = columnType(f, dm.enums);
        const def = columnDefault(f, t, base);
        const notNull = f.isRequired && !f.isList; // Prisma emits scalar lists as nullable arrays
        facts.add(`column ${t}.${f.dbName ?? f.name} ${base}${f.isList ? '[]' : ''}${notNull ? ' NOT NULL' : ''}${def ? ` DEFAULT ${def}` : ''}`);
      } else if (f.kind === 'object' && f.relationFromFields?.length) {
        const target = model(f.type);
        const from = f.relationFromFields.map((x) => column(m, x));
        const to = (f.relationToFields ?? []).map((x) => column(target, x));
        const onDelete = REFERENTIAL_ACTIONS[f.relationOnDelete ?? (f.isRequired ? 'Restrict' : 'SetNull')];
        const onUpdate = REFERENTIAL_ACTIONS[f.relationOnUpdate ?? 'Cascade'];
        facts.add(`foreign key ${t}.${defaultName(t, from, '_fkey')} (${from.join(', ')}) -> ${table(target)} (${to.join(', ')}) ON DELETE ${onDelete} ON UPDATE ${onUpdate}`);
      } else if (f.kind === 'unsupported') {
        fail(`Unsupported(...) field ${m.name}.${f.name}`);
      }
    }
  }
  for (const idx of dm.indexes) {
    const m = model(idx.model);
    const t = table(m);
    const cols = idx.fields.map((f) => column(m, f.name));
    const list = idx.fields.map((f, i) => `${cols[i]}${f.sortOrder === 'desc' ? ' DESC' : ''}`).join(', ');
    if (idx.type === 'id') facts.add(`primary key ${t}.${idx.dbName ?? defaultName(t, [], '_pkey')} (${list})`);
    else if (idx.type === 'unique') facts.add(`unique index ${t}.${idx.dbName ?? defaultName(t, cols, '_key')} (${list})`);
    else if (idx.type === 'normal') facts.add(`index ${t}.${idx.dbName ?? defaultName(t, cols, '_idx')} (${list})`);
    else fail(`unsupported index type ${idx.type} on ${idx.model}`);
  }
  return facts;
}

function columnType(f: Field, enums: Enum[]): string {
  if (f.kind === 'enum') {
    const e = enums.find((x) => x.name === f.type) ?? fail(`unknown enum ${f.type}`);
    return ident(e.dbName ?? e.name);
  }
  if (f.nativeType) {
    const [name, args] = f.nativeType;
    return (NATIVE_TYPES[name] ?? fail(`add @db.${name} to NATIVE_TYPES`))(args);
  }
  return SCALAR_TYPES[f.type] ?? fail(`add ${f.type} to SCALAR_TYPES`);
}

// The database default Prisma emits, as pg_get_expr() prints it; null when Prisma fills the value in itself.
function columnDefault(f: Field, table: string, type: string): string | null {
  const d = f.default;
  if (d === undefined) return null;
  if (typeof d === 'object' && !Array.isArray(d)) {
    if (d.name === 'now') return 'CURRENT_TIMESTAMP';
    if (['uuid', 'cuid', 'nanoid', 'ulid'].includes(d.name)) return null;
    if (d.name === 'autoincrement') return `nextval('${table}_${f.dbName ?? f.name}_seq'::regclass)`;
    if (d.name === 'dbgenerated') return String(d.args[0]);
  } else if (typeof d === 'string' && !f.isList) {
    return `'${d.replace(/'/g, "''")}'::${type.replace(/\(.*\)/, '')}`;
  } else if ((typeof d === 'number' || typeof d === 'boolean') && !f.isList) {
    return String(d);
  }
  return fail(`unsupported default ${JSON.stringify(d)} on ${table}.${f.name}`);
}

/** The same kind of facts, read from the catalog of a database (everything in its current schema). */
async function databaseFacts(databaseUrl: string): Promise<Set<string>> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const rows = async (sql: string) => (await client.query<{ fact: string }>(sql)).rows.map((r) => r.fact);
    const tables = `SELECT c.oid, c.relname FROM pg_class c
      WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind IN ('r', 'p') AND c.relname <> '_prisma_migrations'`;
    const cols = (rel: string, nums: string) =>
      `(SELECT string_agg(a.attname, ', ' ORDER BY k.i) FROM unnest(${nums}) WITH ORDINALITY k(n, i)
         JOIN pg_attribute a ON a.attrelid = ${rel} AND a.attnum = k.n)`;
    const facts = [
      ...(await rows(`SELECT 'table ' || relname AS fact FROM (${tables}) t`)),
      ...(await rows(`SELECT 'enum ' || t.typname || ' (' || string_agg(e.enumlabel, ', ' ORDER BY e.enumsortorder) || ')' AS fact
        FROM pg_type t JOIN pg_enum e ON e.enumtypid = t.oid WHERE t.typnamespace = current_schema()::regnamespace GROUP BY t.typname`)),
      ...(await rows(`SELECT 'column ' || t.relname || '.' || a.attname || ' ' || format_type(a.atttypid, a.atttypmod)
          || CASE WHEN a.attnotnull THEN ' NOT NULL' ELSE '' END
          || COALESCE(' DEFAULT ' || pg_get_expr(d.adbin, d.adrelid), '') AS fact
        FROM (${tables}) t JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum > 0 AND NOT a.attisdropped
        LEFT JOIN pg_attrdef d ON d.adrelid = t.oid AND d.adnum = a.attnum`)),
      ...(await rows(`SELECT CASE WHEN i.indisunique THEN 'unique index ' ELSE 'index ' END || t.relname || '.' || ic.relname || ' ('
          || (SELECT string_agg(COALESCE(a.attname, pg_get_indexdef(i.indexrelid, k.i::int, true))
                || CASE WHEN i.indoption[k.i - 1] & 1 = 1 THEN ' DESC' ELSE '' END, ', ' ORDER BY k.i)
              FROM unnest(i.indkey) WITH ORDINALITY k(n, i) LEFT JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = k.n) || ')'
          || CASE WHEN am.amname <> 'btree' THEN ' USING ' || am.amname ELSE '' END
          || COALESCE(' WHERE ' || pg_get_expr(i.indpred, i.indrelid), '') AS fact
        FROM (${tables}) t JOIN pg_index i ON i.indrelid = t.oid JOIN pg_class ic ON ic.oid = i.indexrelid
        JOIN pg_am am ON am.oid = ic.relam WHERE NOT i.indisprimary`)),
      ...(await rows(`SELECT CASE c.contype
            WHEN 'p' THEN 'primary key ' || t.relname || '.' || c.conname || ' (' || ${cols('t.oid', 'c.conkey')} || ')'
            WHEN 'f' THEN 'foreign key ' || t.relname || '.' || c.conname || ' (' || ${cols('t.oid', 'c.conkey')} || ') -> '
              || c.confrelid::regclass::text || ' (' || ${cols('c.confrelid', 'c.confkey')} || ')'
              || ' ON DELETE ' || (CASE c.confdeltype WHEN 'a' THEN 'NO ACTION' WHEN 'r' THEN 'RESTRICT' WHEN 'c' THEN 'CASCADE' WHEN 'n' THEN 'SET NULL' ELSE 'SET DEFAULT' END)
              || ' ON UPDATE ' || (CASE c.confupdtype WHEN 'a' THEN 'NO ACTION' WHEN 'r' THEN 'RESTRICT' WHEN 'c' THEN 'CASCADE' WHEN 'n' THEN 'SET NULL' ELSE 'SET DEFAULT' END)
            WHEN 'c' THEN 'check ' || t.relname || '.' || c.conname || ' ' || pg_get_constraintdef(c.oid)
            ELSE 'constraint ' || t.relname || '.' || c.conname || ' ' || pg_get_constraintdef(c.oid) END AS fact
        FROM (${tables}) t JOIN pg_constraint c ON c.conrelid = t.oid`)),
    ];
    return new Set(facts);
  } finally {
    await client.end();
  }
}

/** Human-readable differences; empty when the schema and the database agree. */
function compareFacts(schema: Set<string>, database: Set<string>, allowedExtras: string[] = ALLOWED_EXTRAS): string[] {
  return [
    ...[...schema].filter((f) => !database.has(f)).map((f) => `missing in database: ${f}`),
    ...[...database].filter((f) => !schema.has(f) && !allowedExtras.includes(f)).map((f) => `not in schema: ${f}`),
    ...allowedExtras.filter((f) => !database.has(f)).map((f) => `allow-listed but missing in database: ${f}`),
  ].sort();
}

function fail(message: string): never {
  throw new Error(`schema-agreement: ${message}`);
}

describe('prisma/schema.prisma and the migrated database', () => {
  const dbName = `glimpse_schema_${randomBytes(6).toString('hex')}`;
  const url = new URL(testDatabaseUrl());
  url.pathname = `/${dbName}`;
  const databaseUrl = url.toString();
  const datamodel = loadDatamodel();
  let actual: Set<string>;

  beforeAll(async () => {
    await ensureDatabase(databaseUrl);
    await migrate({ databaseUrl, migrationsDir: path.join(root, 'prisma/migrations') });
    actual = await databaseFacts(databaseUrl);
  });
  afterAll(async () => {
    const admin = new URL(databaseUrl);
    admin.pathname = '/postgres';
    const client = new pg.Client({ connectionString: admin.toString() });
    await client.connect();
    await client.query(`DROP DATABASE IF EXISTS "${dbName}" WITH (FORCE)`);
    await client.end();
  });

  it('agree on every table, column, type, default, key, index and relation', () => {
    const expected = schemaFacts(datamodel);
    expect(expected.size).toBeGreaterThan(datamodel.models.length * 3);
    expect(compareFacts(expected, actual)).toEqual([]);
  });

  it('the comparison reports an altered model', () => {
    const altered = structuredClone(datamodel);
    const account = altered.models.find((m) => m.name === 'Account')!;
    account.fields.find((f) => f.name === 'name')!.isRequired = false;
    const token = altered.models.find((m) => m.name === 'EventToken')!;
    token.fields.find((f) => f.name === 'account')!.relationOnDelete = 'Restrict';
    altered.indexes = altered.indexes.filter((i) => !(i.model === 'EventToken' && i.type === 'unique'));
    expect(compareFacts(schemaFacts(altered), actual)).toEqual([
      'missing in database: column accounts.name text',
      'missing in database: foreign key event_tokens.event_tokens_account_id_fkey (account_id) -> accounts (id) ON DELETE RESTRICT ON UPDATE CASCADE',
      'not in schema: column accounts.name text NOT NULL',
      'not in schema: foreign key event_tokens.event_tokens_account_id_fkey (account_id) -> accounts (id) ON DELETE CASCADE ON UPDATE CASCADE',
      'not in schema: unique index event_tokens.event_tokens_hash_key (hash)',
    ]);
  });

  it('round-trips one row of every model through the Prisma client', async () => {
    const db: Db = createDb({ databaseUrl, poolSize: 2 });
    try {
      const at = new Date('2026-11-22T18:00:00.123Z');
      const account = await db.account.create({ data: { name: 'Acme' } });
      const playbook = await db.playbook.create({ data: { accountId: account.id, name: 'Welcome' } });
      const ids = { accountId: account.id, playbookId: playbook.id };
      const person = { email: 'a@example.com', eventName: 'signup' };
      const data = {
        eventToken: { accountId: account.id, prefix: 'et_', hash: 'h1', lastUsedAt: at },
        apiKey: { accountId: account.id, prefix: 'ak_', hash: 'h2', scopes: ['lookup', 'manage'] },
        playbookTrigger: { ...ids, eventName: 'signup' },
        playbookExit: { ...ids, eventName: 'churn' },
        enrollment: { ...ids, email: person.email, status: 'stopped', startedAt: at, startedBy: 'signup', startEventId: randomUUID(), stoppedAt: at, stoppedBy: 'churn', stopEventId: randomUUID() },
        eventName: { accountId: account.id, name: 'signup', firstSeenAt: at, lastSeenAt: at, count: 9_007_199_254_740_993n },
        processedEvent: { eventId: randomUUID(), accountId: account.id, processedAt: at },
        playbookEffect: { id: randomUUID(), eventId: randomUUID(), ...ids, ...person, action: 'started', at, publishedAt: at },
        person: { id: '5f1d7a0c9e8b4a3f2c1d0e9f', record: { profile: { id: '5f1d7a0c9e8b4a3f2c1d0e9f' }, skills: ['sql'] }, details: { name: 'Ada' } },
        identity: { kind: 'email', value: 'a@example.com', personId: '5f1d7a0c9e8b4a3f2c1d0e9f' },
        visitor: { accountId: account.id, id: '0123456789abcdef01234567', personId: '5f1d7a0c9e8b4a3f2c1d0e9f', pageViews: { count: 3 } },
        usageDay: { accountId: account.id, day: new Date('2026-11-22T00:00:00.000Z'), identityMatches: 2, enrichedRecords: 2 },
        usageEntry: { accountId: account.id, day: new Date('2026-11-22T00:00:00.000Z'), leaseId: randomUUID() },
        enrichmentCredit: { accountId: account.id, creditLimit: 7 },
        creditLease: { id: randomUUID(), accountId: account.id, granted: 3, expiresAt: at },
      };
      const byPlaybook = (eventName: string) => ({ playbookId_eventName: { playbookId: playbook.id, eventName } });
      // Model name -> [what was written, what Prisma returned on create, the same row read back].
      const rows: Record<string, [object, unknown, unknown]> = {
        Account: [{ name: 'Acme' }, account, await db.account.findUnique({ where: { id: account.id } })],
        Playbook: [{ name: 'Welcome' }, playbook, await db.playbook.findUnique({ where: { id: playbook.id } })],
        EventToken: [data.eventToken, await db.eventToken.create({ data: data.eventToken }), await db.eventToken.findUnique({ where: { hash: 'h1' } })],
        ApiKey: [data.apiKey, await db.apiKey.create({ data: data.apiKey }), await db.apiKey.findUnique({ where: { hash: 'h2' } })],
        PlaybookTrigger: [data.playbookTrigger, await db.playbookTrigger.create({ data: data.playbookTrigger }), await db.playbookTrigger.findUnique({ where: byPlaybook('signup') })],
        PlaybookExit: [data.playbookExit, await db.playbookExit.create({ data: data.playbookExit }), await db.playbookExit.findUnique({ where: byPlaybook('churn') })],
        Enrollment: [data.enrollment, await db.enrollment.create({ data: data.enrollment }), await db.enrollment.findFirst({ where: ids })],
        EventName: [data.eventName, await db.eventName.create({ data: data.eventName }), await db.eventName.findUnique({ where: { accountId_name: { accountId: account.id, name: 'signup' } } })],
        ProcessedEvent: [data.processedEvent, await db.processedEvent.create({ data: data.processedEvent }), await db.processedEvent.findUnique({ where: { eventId: data.processedEvent.eventId } })],
        PlaybookEffect: [data.playbookEffect, await db.playbookEffect.create({ data: data.playbookEffect }), await db.playbookEffect.findUnique({ where: { id: data.playbookEffect.id } })],
        Person: [data.person, await db.person.create({ data: data.person }), await db.person.findUnique({ where: { id: data.person.id } })],
        Identity: [data.identity, await db.identity.create({ data: data.identity }), await db.identity.findUnique({ where: { kind_value: { kind: 'email', value: 'a@example.com' } } })],
        Visitor: [data.visitor, await db.visitor.create({ data: data.visitor }), await db.visitor.findUnique({ where: { accountId_id: { accountId: account.id, id: data.visitor.id } } })],
        UsageDay: [data.usageDay, await db.usageDay.create({ data: data.usageDay }), await db.usageDay.findUnique({ where: { accountId_day: { accountId: account.id, day: data.usageDay.day } } })],
        UsageEntry: [data.usageEntry, await db.usageEntry.create({ data: data.usageEntry }), await db.usageEntry.findFirst({ where: { accountId: account.id } })],
        EnrichmentCredit: [data.enrichmentCredit, await db.enrichmentCredit.create({ data: data.enrichmentCredit }), await db.enrichmentCredit.findUnique({ where: { accountId: account.id } })],
        CreditLease: [data.creditLease, await db.creditLease.create({ data: data.creditLease }), await db.creditLease.findUnique({ where: { id: data.creditLease.id } })],
      };
      expect(Object.keys(rows).sort()).toEqual(datamodel.models.map((m) => m.name).sort()); // a new model must be added here
      for (const [model, [written, created, read]] of Object.entries(rows)) {
        expect({ model, row: read }).toEqual({ model, row: created });
        expect({ model, row: read }).toMatchObject({ model, row: written });
      }
    } finally {
      await db.$disconnect();
    }
  });

  it('the comparison reports a column dropped from the database', async () => {
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    await client.query('ALTER TABLE "event_tokens" DROP COLUMN "revoked_at"');
    await client.end();
    expect(compareFacts(schemaFacts(datamodel), await databaseFacts(databaseUrl))).toEqual([
      'missing in database: column event_tokens.revoked_at timestamp(3) with time zone',
    ]);
  });
});
