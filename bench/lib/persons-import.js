// The pieces of the persons import bench (bench/imports.js): the CLI run as a child with its CPU
// counted, the CPU of Postgres backends that come and go (one per import request), and a raw COPY
// of the rows an import stored, timed, into empty tables shaped like persons and identities.
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const { spawn } = require('node:child_process');
const { pipeline } = require('node:stream/promises');
const { performance } = require('node:perf_hooks');
const { processCpuSeconds } = require('./cpu-usage.js');
const { REPO_ROOT } = require('./processes.js');

/**
 * CPU seconds used by every Postgres backend whose connection is named `applicationName` (on the
 * database `sql` is connected to) while it watches, sampled every 50 ms: a backend found after the
 * start counts from zero (a new process), one there before from its first sample. A backend's
 * figure goes with it when its connection closes, so at most its last 50 ms (its commit) are missed.
 * Returns stop(), which resolves { seconds, backends }.
 */
function watchBackends(sql, applicationName) {
  /** @type {Map<number, { first: number, last: number }>} */
  const seen = new Map();
  let stopped = false;
  let initial = true;
  const sample = async () => {
    while (!stopped) {
      const { rows } = await sql.query('SELECT pid FROM pg_stat_activity WHERE application_name = $1 AND datname = current_database()', [applicationName]);
      for (const { pid } of rows) {
        const seconds = processCpuSeconds(pid);
        if (seconds === null) continue;
        const known = seen.get(pid);
        if (known) known.last = seconds;
        else seen.set(pid, { first: initial ? seconds : 0, last: seconds });
      }
      initial = false;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };
  const running = sample();
  return async () => {
    stopped = true;
    await running;
    let seconds = 0;
    for (const { first, last } of seen.values()) seconds += last - first;
    return { seconds, backends: seen.size };
  };
}

/**
 * Runs `glimpse <args>` (the built CLI, through cli-cpu.js) with `env` over this process's (a key
 * set to undefined is left out), and resolves { code, stdout, stderrTail, wallMs, cpuMs }. Each
 * stderr line (the CLI's progress) goes to `onLine`.
 * @param {Record<string, any>} options @returns {Promise<any>}
 */
function runCli({ args, env, onLine = () => {}, cpuFile }) {
  const t0 = performance.now();
  const child = spawn(process.execPath, [path.join(__dirname, 'cli-cpu.js'), ...args], {
    cwd: REPO_ROOT,
    env: { ...process.env, ...env, BENCH_CPU_FILE: cpuFile },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  const tail = [];
  let partial = '';
  child.stdout.on('data', (chunk) => {
    stdout += chunk;
  });
  child.stderr.on('data', (chunk) => {
    const lines = (partial + chunk).split('\n');
    partial = lines.pop() ?? '';
    for (const line of lines) {
      tail.push(line);
      if (tail.length > 20) tail.shift();
      onLine(line);
    }
  });
  return new Promise((/** @type {(value: any) => void} */ resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => {
      const wallMs = performance.now() - t0;
      let cpuMs = null;
      try {
        cpuMs = JSON.parse(fs.readFileSync(cpuFile, 'utf8')).cpuMs;
      } catch {
        /* the CLI died before its exit handler */
      }
      resolve({ code, stdout, stderrTail: [...tail, partial].join('\n'), wallMs, cpuMs, pid: child.pid });
    });
  });
}

/**
 * Copies the rows of enrichment.persons and enrichment.identities out to files in `dir` (untimed),
 * then times COPY of those files into fresh tables like them (same columns, keys, indexes and
 * compression, no foreign keys) on one connection, with its backend's CPU. `pg` is the driver,
 * `copy` pg-copy-streams; `databaseUrl` a role that may create tables in public.
 * @param {Record<string, any>} options @returns {Promise<any>}
 */
async function rawPersonsCopy({ pg, copy, databaseUrl, dir }) {
  const client = new pg.Client({ connectionString: databaseUrl, application_name: 'bench-imports-raw-copy' });
  await client.connect();
  const files = { persons: path.join(dir, 'persons.copy'), identities: path.join(dir, 'identities.copy') };
  try {
    await pipeline(client.query(copy.to('COPY enrichment.persons (id, record, details, updated_at) TO STDOUT')), fs.createWriteStream(files.persons));
    await pipeline(client.query(copy.to('COPY enrichment.identities (kind, value, person_id) TO STDOUT')), fs.createWriteStream(files.identities));
    await client.query(`
      DROP TABLE IF EXISTS public.bench_raw_identities, public.bench_raw_persons;
      CREATE TABLE public.bench_raw_persons (LIKE enrichment.persons INCLUDING ALL);
      CREATE TABLE public.bench_raw_identities (LIKE enrichment.identities INCLUDING ALL)`);
    const {
      rows: [{ pid }],
    } = await client.query('SELECT pg_backend_pid() AS pid');
    const pg0 = processCpuSeconds(pid);
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    await pipeline(
      fs.createReadStream(files.persons, { highWaterMark: 256 * 1024 }),
      client.query(copy.from('COPY public.bench_raw_persons (id, record, details, updated_at) FROM STDIN')),
    );
    await pipeline(
      fs.createReadStream(files.identities, { highWaterMark: 256 * 1024 }),
      client.query(copy.from('COPY public.bench_raw_identities (kind, value, person_id) FROM STDIN')),
    );
    const wallMs = performance.now() - t0;
    const cpu = process.cpuUsage(cpu0);
    const pg1 = processCpuSeconds(pid);
    const count = async (table) => Number((await client.query(`SELECT count(*) AS n FROM public.${table}`)).rows[0].n);
    return {
      persons: await count('bench_raw_persons'),
      identities: await count('bench_raw_identities'),
      copyMiB: Math.round((fs.statSync(files.persons).size + fs.statSync(files.identities).size) / 1048576),
      wallMs,
      clientCpuMs: (cpu.user + cpu.system) / 1000,
      postgresCpuMs: pg0 === null || pg1 === null ? null : (pg1 - pg0) * 1000,
    };
  } finally {
    await client.query('DROP TABLE IF EXISTS public.bench_raw_identities, public.bench_raw_persons').catch(() => undefined);
    await client.end();
    for (const file of Object.values(files)) fs.rmSync(file, { force: true });
  }
}

module.exports = { watchBackends, runCli, rawPersonsCopy };
