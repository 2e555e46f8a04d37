// The services' tables as the tests that scan "everything in Postgres" see them: every table of
// every service's schema (identity, playbook, enrichment, webhooks), qualified.
import { DATABASE_SCHEMAS } from '@glimpse/config';

/** Raw queries are all these need: any service's client (the test role reaches every schema). */
interface Db {
  $queryRawUnsafe<T>(query: string, ...values: unknown[]): PromiseLike<T>;
}

const SCHEMAS = Object.values(DATABASE_SCHEMAS);

export interface ApplicationColumn {
  /** `table` or `table.column`, for messages. */
  table: string;
  column: string;
  /** "schema"."table", for queries. */
  qualified: string;
}

/** Every table of the services' schemas, in name order. */
export async function applicationTables(db: Db): Promise<{ table: string; qualified: string }[]> {
  const rows = await db.$queryRawUnsafe<{ table_schema: string; table_name: string }[]>(
    `SELECT table_schema, table_name FROM information_schema.tables WHERE table_schema = ANY($1) AND table_type = 'BASE TABLE' ORDER BY table_name`,
    SCHEMAS,
  );
  return rows.map((r) => ({ table: r.table_name, qualified: `"${r.table_schema}"."${r.table_name}"` }));
}

/** Every column of those tables; with `textual`, only the ones that can hold text (text, varchar, json, arrays). */
export async function applicationColumns(db: Db, { textual = false } = {}): Promise<ApplicationColumn[]> {
  const rows = await db.$queryRawUnsafe<{ table_schema: string; table_name: string; column_name: string }[]>(
    `SELECT c.table_schema, c.table_name, c.column_name FROM information_schema.columns c JOIN information_schema.tables t USING (table_schema, table_name)
     WHERE c.table_schema = ANY($1) AND t.table_type = 'BASE TABLE' AND (NOT $2 OR c.data_type IN ('text', 'character varying', 'json', 'jsonb', 'ARRAY'))
     ORDER BY c.table_name, c.column_name`,
    SCHEMAS,
    textual,
  );
  return rows.map((r) => ({ table: r.table_name, column: r.column_name, qualified: `"${r.table_schema}"."${r.table_name}"` }));
}
