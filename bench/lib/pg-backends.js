// Postgres CPU of one database only: the pids of the backends connected to it. On a shared machine
// "every postgres process" would count other people's sessions too.
'use strict';

/** Pids of the backends (client connections) of database `name` right now. */
async function databaseBackendPids(sql, name) {
  const { rows } = await sql.query("SELECT pid FROM pg_stat_activity WHERE datname = $1 AND backend_type = 'client backend'", [name]);
  return rows.map((r) => r.pid);
}

/** Sizes in bytes of each table: heap, TOAST, indexes and total. */
async function tableSizes(sql, tables) {
  const { rows } = await sql.query(
    `SELECT c.relname AS table, pg_relation_size(c.oid) AS heap, coalesce(pg_relation_size(c.reltoastrelid), 0) AS toast,
            pg_indexes_size(c.oid) AS indexes, pg_total_relation_size(c.oid) AS total
     FROM pg_class c WHERE c.relname = ANY($1::text[]) AND c.relkind = 'r' ORDER BY c.relname`,
    [tables],
  );
  return Object.fromEntries(rows.map((r) => [r.table, { heap: Number(r.heap), toast: Number(r.toast), indexes: Number(r.indexes), total: Number(r.total) }]));
}

const mib = (bytes) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;

module.exports = { databaseBackendPids, tableSizes, mib };
