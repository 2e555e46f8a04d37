// Writes imported persons through Postgres COPY. A chunk is one transaction: persons new to the
// table are copied straight into it; re-imported ones go through a staging table and one UPDATE;
// identities go through a staging table and one INSERT … ON CONFLICT, so the last import of an
// email or phone wins it; the companies the persons name are one upsert (company-repository.ts).
// Set-based throughout: a few statements a chunk, whatever its size.
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import pg from 'pg';
import type { Db } from '@glimpse/db/enrichment';
import { from as copyFrom } from 'pg-copy-streams';
import type { CompanyRow } from '../domain/company-record.js';
import type { IdentityRow, PersonRow, PersonWriter } from '../domain/import-persons.js';
import { companiesJson, UPSERT_FROM_PERSONS } from './company-repository.js';
import { copyRow } from './copy-text.js';

// Bounded so one write to the socket carries many rows without holding a whole chunk twice.
const WRITE_BYTES = 256 * 1024;

function* batched(rows: Iterable<string>): Generator<string> {
  let buffer = '';
  for (const row of rows) {
    buffer += row;
    if (buffer.length >= WRITE_BYTES) {
      yield buffer;
      buffer = '';
    }
  }
  if (buffer.length > 0) yield buffer;
}

async function copyIn(client: pg.ClientBase, sql: string, rows: Iterable<string>): Promise<void> {
  await pipeline(Readable.from(batched(rows), { objectMode: false }), client.query(copyFrom(sql)));
}

/** Writes chunks (ids unique within one, identities deduplicated) through COPY on one connection. */
export async function openCopyPersonWriter(databaseUrl: string): Promise<PersonWriter> {
  const client = new pg.Client({ connectionString: databaseUrl, application_name: 'glimpse-import' });
  // A dropped connection surfaces through the pending query instead.
  client.on('error', () => {});
  await client.connect();
  await client.query(`
    CREATE TEMP TABLE import_persons (id text, record json, details json) ON COMMIT DELETE ROWS;
    CREATE TEMP TABLE import_identities (kind text, value text, person_id text) ON COMMIT DELETE ROWS`);

  async function write(rows: PersonRow[], identities: IdentityRow[], companies: CompanyRow[]) {
    const ids = rows.map((r) => r.id);
    const at = new Date().toISOString();
    await client.query('BEGIN');
    try {
      // Serializes concurrent imports (which decide new vs re-imported from the same read) without
      // blocking lookups, which only read persons.
      await client.query('LOCK TABLE persons IN SHARE ROW EXCLUSIVE MODE');
      const { rows: found } = await client.query<{ id: string }>('SELECT id FROM persons WHERE id = ANY($1::text[])', [ids]);
      const existing = new Set(found.map((f) => f.id));
      const fresh = rows.filter((r) => !existing.has(r.id));
      const again = rows.filter((r) => existing.has(r.id));
      if (fresh.length > 0) {
        await copyIn(
          client,
          'COPY persons (id, record, details, updated_at) FROM STDIN',
          fresh.map((r) => copyRow([r.id, r.record, r.details, at])),
        );
      }
      if (again.length > 0) {
        await copyIn(
          client,
          'COPY import_persons (id, record, details) FROM STDIN',
          again.map((r) => copyRow([r.id, r.record, r.details])),
        );
        await client.query('UPDATE persons p SET record = s.record, details = s.details, updated_at = $1 FROM import_persons s WHERE p.id = s.id', [at]);
        // A re-imported person is re-indexed: identities it no longer has must stop finding it.
        await client.query('DELETE FROM identities WHERE person_id = ANY($1::text[])', [[...existing]]);
      }
      if (identities.length > 0) {
        await copyIn(
          client,
          'COPY import_identities (kind, value, person_id) FROM STDIN',
          identities.map((i) => copyRow([i.kind, i.value, i.personId])),
        );
        await client.query(`
          INSERT INTO identities (kind, value, person_id) SELECT kind, value, person_id FROM import_identities
          ON CONFLICT (kind, value) DO UPDATE SET person_id = EXCLUDED.person_id`);
      }
      if (companies.length > 0) await client.query(UPSERT_FROM_PERSONS, [companiesJson(companies)]);
      await client.query('COMMIT');
      return { created: fresh.length, replaced: again.length };
    } catch (err) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw err;
    }
  }

  return { write, close: () => client.end() };
}

/**
 * The same writes as statements through Prisma, for a caller that holds only a Prisma client (a
 * handful of persons, as in a demo seed): the rows travel as JSON arrays instead of COPY.
 */
export function statementPersonWriter(db: Db): PersonWriter {
  return {
    async write(rows, identities, companies) {
      const persons = JSON.stringify(rows.map((r) => ({ id: r.id, record: r.record, details: r.details })));
      await db.$transaction([
        db.$executeRaw`LOCK TABLE persons IN SHARE ROW EXCLUSIVE MODE`,
        db.$executeRaw`DELETE FROM identities WHERE person_id IN (SELECT e->>'id' FROM json_array_elements(${persons}::json) AS e)`,
        db.$executeRaw`
          INSERT INTO persons (id, record, details, updated_at)
          SELECT e->>'id', (e->>'record')::json, (e->>'details')::json, now() FROM json_array_elements(${persons}::json) AS e
          ON CONFLICT (id) DO UPDATE SET record = EXCLUDED.record, details = EXCLUDED.details, updated_at = EXCLUDED.updated_at`,
        db.$executeRaw`
          INSERT INTO identities (kind, value, person_id)
          SELECT * FROM unnest(${identities.map((i) => i.kind)}::text[], ${identities.map((i) => i.value)}::text[], ${identities.map((i) => i.personId)}::text[])
          ON CONFLICT (kind, value) DO UPDATE SET person_id = EXCLUDED.person_id`,
        db.$executeRawUnsafe(UPSERT_FROM_PERSONS, companiesJson(companies)),
      ]);
    },
    close: async () => {},
  };
}
