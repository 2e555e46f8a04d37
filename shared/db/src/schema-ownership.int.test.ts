// Each service owns its data: on the migrated test database, every service's role may use the tables
// of its own schema and is refused every other service's, whatever it tries; no foreign key crosses a
// schema. Real Postgres, real roles, the migrations as production applies them.
import pg from 'pg';
import { DATABASE_ROLES, DATABASE_SCHEMAS, type DatabaseService } from '@glimpse/config';
import { serviceDatabaseUrl, testDatabaseUrl } from '../../../test/config';

const SERVICES = Object.keys(DATABASE_ROLES) as DatabaseService[];
const OWNED_SCHEMAS = Object.values(DATABASE_SCHEMAS);

interface Table {
  schema: string;
  name: string;
}

const clients = new Map<string, pg.Client>();
async function connect(url: string): Promise<pg.Client> {
  let client = clients.get(url);
  if (!client) {
    client = new pg.Client({ connectionString: url });
    await client.connect();
    clients.set(url, client);
  }
  return client;
}
const asOwner = () => connect(testDatabaseUrl());
const asService = (service: DatabaseService) => connect(serviceDatabaseUrl(service));

/** The Postgres error code of a statement, or 'ok' when it ran. */
async function outcome(client: pg.Client, sql: string): Promise<string> {
  await client.query('BEGIN');
  try {
    await client.query(sql);
    return 'ok';
  } catch (err) {
    return (err as { code?: string }).code ?? String(err);
  } finally {
    await client.query('ROLLBACK'); // nothing a probe did stays
  }
}

let tables: Table[] = [];

beforeAll(async () => {
  const { rows } = await (
    await asOwner()
  ).query<Table>(
    `SELECT table_schema AS schema, table_name AS name FROM information_schema.tables
     WHERE table_type = 'BASE TABLE' AND table_schema = ANY($1) ORDER BY 1, 2`,
    [OWNED_SCHEMAS],
  );
  tables = rows;
});

afterAll(async () => {
  await Promise.all([...clients.values()].map((c) => c.end()));
});

describe('a schema per service', () => {
  it("when the migrations have run, then every table of the application is in one of the services' schemas, and each schema has tables", async () => {
    const { rows } = await (
      await asOwner()
    ).query<{ schema: string; name: string }>(
      `SELECT table_schema AS schema, table_name AS name FROM information_schema.tables
       WHERE table_type = 'BASE TABLE' AND table_schema NOT IN ('pg_catalog', 'information_schema') AND NOT (table_schema = ANY($1))`,
      [OWNED_SCHEMAS],
    );
    expect(rows).toEqual([{ schema: 'public', name: '_prisma_migrations' }]);
    for (const schema of OWNED_SCHEMAS) expect(tables.filter((t) => t.schema === schema).length).toBeGreaterThan(0);
    // Table names are unique across the schemas, so unqualified names are never ambiguous.
    expect(new Set(tables.map((t) => t.name)).size).toBe(tables.length);
  });

  it.each(SERVICES)('when the %s role reads and writes, then it may use its own schema and is refused every other', async (service) => {
    const client = await asService(service);
    const own = DATABASE_SCHEMAS[service];
    const seen: Record<string, string> = {};
    const expected: Record<string, string> = {};
    for (const t of tables) {
      const qualified = `"${t.schema}"."${t.name}"`;
      const mine = t.schema === own;
      seen[`select ${qualified}`] = await outcome(client, `SELECT * FROM ${qualified} LIMIT 1`);
      expected[`select ${qualified}`] = mine ? 'ok' : '42501'; // insufficient_privilege
      seen[`delete ${qualified}`] = await outcome(client, `DELETE FROM ${qualified} WHERE false`);
      expected[`delete ${qualified}`] = mine ? 'ok' : '42501';
      // Unqualified, another service's table does not even resolve: its schema is skipped on the search path.
      seen[`select ${t.name}`] = await outcome(client, `SELECT * FROM "${t.name}" LIMIT 1`);
      expected[`select ${t.name}`] = mine ? 'ok' : '42P01'; // undefined_table
    }
    expect(seen).toEqual(expected);
  });

  it.each(SERVICES)('when the %s role tries to change a schema or read the migration history, then it is refused', async (service) => {
    const client = await asService(service);
    for (const schema of [...OWNED_SCHEMAS, 'public']) {
      expect(await outcome(client, `CREATE TABLE "${schema}".probe (id int)`)).toBe('42501');
    }
    const ownTable = tables.find((t) => t.schema === DATABASE_SCHEMAS[service])!;
    expect(await outcome(client, `DROP TABLE "${ownTable.schema}"."${ownTable.name}"`)).toBe('42501'); // only the migration role owns tables
    expect(await outcome(client, 'SELECT * FROM public._prisma_migrations LIMIT 1')).toBe('42501');
  });

  it('when the foreign keys are listed, then none crosses from one schema to another', async () => {
    const { rows } = await (
      await asOwner()
    ).query<{ name: string }>(
      `SELECT c.conname AS name FROM pg_constraint c
       JOIN pg_class src ON src.oid = c.conrelid JOIN pg_class dst ON dst.oid = c.confrelid
       WHERE c.contype = 'f' AND src.relnamespace <> dst.relnamespace`,
    );
    expect(rows).toEqual([]);
    const {
      rows: [within],
    } = await (await asOwner()).query<{ n: number }>(`SELECT count(*)::int AS n FROM pg_constraint WHERE contype = 'f'`);
    expect(within!.n).toBeGreaterThan(0); // the query does see foreign keys: the ones inside a schema
  });
});
