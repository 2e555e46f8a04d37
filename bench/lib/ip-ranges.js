// IP ranges for the collect benchmark: a generated CSV of `count` ranges in the layout of the
// vendors' range files (start,end,asn,name; not CIDR-aligned; nine in ten IPv4 from 16.0.0.0 up,
// one in ten IPv6 under 2a00::/16; every seventh name quoted with a comma in it), imported as the
// dataset "bench" through the visitors package's importIpDataset (timed, with the Node process's
// CPU), beside a raw COPY of the same rows' first, last, asn and name into a scratch table: the
// ratio of the two rates is how close the importer comes to the database's own ceiling. For
// reference, a raw COPY of the same rows as the import writes them into a table shaped like
// ip_ranges (its sequence and indexes): what the table itself costs. Addresses inside the ranges and
// outside them, for the page views.
'use strict';
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { Readable } = require('node:stream');
const { pipeline } = require('node:stream/promises');
const { performance } = require('node:perf_hooks');
const { processCpuSeconds } = require('./cpu-usage.js');

const DATASET = 'bench';
const V4_BASE = 16 * 2 ** 24; // 16.0.0.0: the /4 above it holds 1,048,576 blocks of 256
const COLUMNS = ['start', 'end', 'asn', 'name'];

const v4 = (n) => [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join('.');
const hex = (n) => n.toString(16);

/** Range `i`: { start, end, asn, name }, inclusive and off any CIDR boundary. */
function rangeAt(i) {
  const company = i % 50_000;
  const name = i % 7 === 0 ? `Bench Company ${company}, Inc.` : `Bench Company ${company}`;
  const asn = 64_512 + (company % 1000);
  if (i % 10 === 9) {
    const k = Math.floor(i / 10);
    const prefix = `2a00:${hex(k >>> 16)}:${hex(k & 0xffff)}`;
    return { start: `${prefix}::11`, end: `${prefix}:ffff::ff`, asn, name };
  }
  const block = V4_BASE + (i - Math.floor(i / 10)) * 256; // the i-th IPv4 range's block of 256
  return { start: v4(block + 17), end: v4(block + 17 + 200 + (i % 37)), asn, name };
}

/** An address inside range `i` (`salt` picks the host). */
function addressIn(i, salt = 0) {
  const { start } = rangeAt(i);
  if (start.includes(':')) return `${start.slice(0, -2)}${hex(0x12 + (salt % 0xfff0))}`;
  const parts = start.split('.');
  parts[3] = String(17 + (salt % 200));
  return parts.join('.');
}

/** An address in none of the ranges (TEST-NET-3 and 2001:db8::/32). */
const addressOutside = (salt) => (salt % 2 ? `203.0.113.${1 + (salt % 254)}` : `2001:db8::${hex(1 + (salt % 0xfffe))}`);

const csvName = (name) => (name.includes(',') ? `"${name}"` : name);

/** Each file's line for range r: the CSV (as the vendors ship it), and COPY text of four and of all eight columns. */
const LINES = {
  csv: { header: 'start_ip,end_ip,asn,name\n', line: (r) => `${r.start},${r.end},${r.asn},${csvName(r.name)}\n` },
  copy4: { header: '', line: (r) => `${r.start}\t${r.end}\t${r.asn}\t${r.name}\n` },
  copy8: { header: '', line: (r) => `raw\t1\t${r.start}\t${r.end}\t${r.asn}\t${r.name}\t\\N\t\\N\n` },
};

async function writeFiles(dir, count) {
  const files = {};
  for (const [name, { header, line }] of Object.entries(LINES)) {
    files[name] = path.join(dir, `ranges.${name}`);
    const chunks = function* chunks() {
      let batch = header;
      for (let i = 0; i < count; i += 1) {
        batch += line(rangeAt(i));
        if (batch.length > 256 * 1024) {
          yield batch;
          batch = '';
        }
      }
      if (batch) yield batch;
    };
    await pipeline(Readable.from(chunks()), fs.createWriteStream(files[name]));
  }
  return files;
}

const IMPORT_APPLICATION = 'glimpse-import-ip-ranges'; // the application_name importIpDataset's connection gives

/**
 * CPU seconds used by the Postgres backend of the first connection named `applicationName` that
 * `sql` (another connection) finds, sampled every 50 ms until stop() (a backend's figures go with
 * it when its connection closes: at most the last 50 ms, the import's commit, are missed).
 */
function watchBackendCpu(sql, applicationName) {
  let pid = null;
  let last = null;
  let stopped = false;
  const sample = async () => {
    while (!stopped) {
      if (pid === null) {
        const { rows } = await sql.query('SELECT pid FROM pg_stat_activity WHERE application_name = $1 AND datname = current_database()', [applicationName]);
        pid = rows[0]?.pid ?? null;
      }
      const seconds = pid === null ? null : processCpuSeconds(pid);
      if (seconds !== null) last = seconds;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };
  const running = sample();
  return async () => {
    stopped = true;
    await running;
    return last;
  };
}

/** µs per row of `seconds` of CPU. */
const perRow = (seconds, count) => (seconds === null ? null : Math.round((seconds * 1e8) / count) / 100);

/**
 * The CSV imported as `glimpse import ip-ranges FILE --format csv` does (by its path, read a chunk
 * at a time), into a dataset deleted first and the table vacuumed (untimed): a first import of
 * `count` ranges. `sql` is a connection that may VACUUM and see pg_stat_activity.
 * @param {Record<string, any>} options @returns {Promise<any>}
 */
async function timedImport({ visitorsPackage, databaseUrl, sql, file, count }) {
  await visitorsPackage.deleteIpDataset(databaseUrl, DATASET).catch((err) => {
    if (err.code !== 'not_found') throw err;
  });
  await sql.query('VACUUM visitors.ip_ranges');
  const cpu0 = process.cpuUsage();
  const stopWatching = watchBackendCpu(sql, IMPORT_APPLICATION);
  const t0 = performance.now();
  const report = await visitorsPackage.importIpDataset({ path: file }, { databaseUrl, dataset: DATASET, format: 'csv', columns: COLUMNS });
  const wallMs = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  const backendCpu = await stopWatching();
  const nodeCpuMs = (cpu.user + cpu.system) / 1000;
  if (report.imported !== count || report.skipped)
    throw new Error(`importIpDataset imported ${report.imported} of ${count} ranges: ${JSON.stringify(report.errors.slice(0, 3))}`);
  return {
    ranges: report.imported,
    version: report.version,
    seconds: Math.round(wallMs / 10) / 100,
    rangesPerSec: Math.round((count / wallMs) * 1000),
    nodeCpuPctOfOneCore: Math.round((nodeCpuMs / wallMs) * 100),
    nodeCpuUsPerRange: Math.round((nodeCpuMs * 100_000) / count) / 100,
    postgresCpuUsPerRange: perRow(backendCpu, count),
  };
}

/** The scratch tables: the four columns alone (the target's baseline), and ip_ranges' shape. */
const RAW_TABLES = {
  copy4: { ddl: '(first inet NOT NULL, last inet NOT NULL, asn bigint, name text)', columns: 'first, last, asn, name' },
  copy8: { ddl: '(LIKE visitors.ip_ranges INCLUDING ALL)', columns: 'dataset, version, first, last, asn, name, domain, type' },
};

/**
 * COPY of a file written beforehand into a fresh scratch table (`shape`: copy4 or copy8), on the
 * same database, timed. `pg` is the driver, `copy` pg-copy-streams.
 * @param {Record<string, any>} options @returns {Promise<any>}
 */
async function rawCopy({ pg, copy, databaseUrl, file, count, shape }) {
  const { ddl, columns } = RAW_TABLES[shape];
  const client = new pg.Client({ connectionString: databaseUrl, application_name: 'bench-ip-ranges-raw-copy' });
  await client.connect();
  try {
    await client.query(`DROP TABLE IF EXISTS bench_raw_ip_ranges; CREATE TABLE bench_raw_ip_ranges ${ddl}`);
    const {
      rows: [{ pid }],
    } = await client.query('SELECT pg_backend_pid() AS pid');
    const pg0 = processCpuSeconds(pid);
    const t0 = performance.now();
    await pipeline(fs.createReadStream(file, { highWaterMark: 256 * 1024 }), client.query(copy.from(`COPY bench_raw_ip_ranges (${columns}) FROM STDIN`)));
    const wallMs = performance.now() - t0;
    const pg1 = processCpuSeconds(pid);
    const { rows } = await client.query('SELECT count(*)::int AS n FROM bench_raw_ip_ranges');
    if (rows[0].n !== count) throw new Error(`the raw COPY stored ${rows[0].n} of ${count} rows`);
    return {
      rows: count,
      seconds: Math.round(wallMs / 10) / 100,
      rowsPerSec: Math.round((count / wallMs) * 1000),
      postgresCpuUsPerRange: pg0 === null || pg1 === null ? null : perRow(pg1 - pg0, count),
    };
  } finally {
    await client.query('DROP TABLE IF EXISTS bench_raw_ip_ranges').catch(() => undefined);
    await client.end();
  }
}

/**
 * Generates `count` ranges to a temporary directory (untimed), imports them as dataset "bench"
 * (which stays, for the page views' lookups), then times the raw COPY. `databaseUrl` is the visitors
 * role's (the import's), `rawDatabaseUrl` any role's that may create a table.
 * @param {Record<string, any>} options @returns {Promise<any>}
 */
async function measureImport({ visitorsPackage, pg, databaseUrl, rawDatabaseUrl, count, progress }) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'glimpse-bench-ip-ranges-'));
  try {
    progress(`ip ranges: writing ${count} CSV ranges to ${dir} (untimed)`);
    const files = await writeFiles(dir, count);
    progress(`ip ranges: importIpDataset (csv) of ${count} ranges into dataset ${DATASET}`);
    const sql = new pg.Client({ connectionString: rawDatabaseUrl, application_name: 'bench-ip-ranges' });
    await sql.connect();
    let imported;
    try {
      imported = await timedImport({ visitorsPackage, databaseUrl, sql, file: files.csv, count });
    } finally {
      await sql.end();
    }
    const copy = require('pg-copy-streams');
    progress(`ip ranges: raw COPY of the same ${count} rows (first, last, asn, name)`);
    const raw = await rawCopy({ pg, copy, databaseUrl: rawDatabaseUrl, file: files.copy4, count, shape: 'copy4' });
    progress(`ip ranges: raw COPY of the same ${count} rows into a table shaped like ip_ranges (for reference)`);
    const rawTable = await rawCopy({ pg, copy, databaseUrl: rawDatabaseUrl, file: files.copy8, count, shape: 'copy8' });
    return {
      dataset: DATASET,
      csvMiB: Math.round(fs.statSync(files.csv).size / 1048576),
      import: imported,
      rawCopy: raw,
      rawCopyIpRangesShape: rawTable,
      importToRawCopy: Math.round((imported.rangesPerSec / raw.rowsPerSec) * 100) / 100,
      importToRawCopyIpRangesShape: Math.round((imported.rangesPerSec / rawTable.rowsPerSec) * 100) / 100,
    };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

module.exports = { DATASET, rangeAt, addressIn, addressOutside, measureImport };
