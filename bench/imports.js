// The persons import through the operator API beside the direct import and a raw COPY, in one run:
// --persons demo persons written to an NDJSON file (untimed), then imported by the real CLI
// (`glimpse import persons FILE`) twice into an emptied persons table: directly (the enrichment's
// import code against the database, as its role) and through a real gateway's operator API (the
// file sent in parts, streamed on to a real enrichment service, which runs the same COPY import);
// then the rows stored copied raw into empty tables shaped like persons and identities. Persons/s of
// each, their ratios, and CPU ms per person of each process: the CLI, gateway, enrichment service
// and the import's Postgres backends.
'use strict';
const crypto = require('node:crypto');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { Readable } = require('node:stream');
const { pipeline } = require('node:stream/promises');
const { round } = require('./lib/stats.js');
const suite = require('./lib/suite.js');
const { startCpuMeter } = require('./lib/cpu-usage.js');
const { RESULTS_DIR } = require('./lib/results.js');
const { watchBackends, runCli, rawPersonsCopy } = require('./lib/persons-import.js');

const SUITE = 'imports';
const description = 'import persons through the operator API (CLI → gateway → enrichment) against the direct import and a raw COPY (persons/s, CPU per person)';
const BENCH_DB = suite.benchDatabaseName(SUITE);
const TARGETS = { minApiOverRawCopy: 0.3 };
const NUMERIC = { persons: [100_000, 1000, 1_000_000], rounds: [1, 1, 5], seed: [7, 1, 1_000_000] };
// The application_name of the import's COPY connection (services/enrichment/src/data/person-import-repository.ts).
const IMPORT_APPLICATION = 'glimpse-import';

const help = `Usage: npm run bench:imports [-- options]
       node scripts/bench.js imports [options]

${description}.
Builds gateway, enrichment and CLI, migrates the ${BENCH_DB} database, starts a gateway (with an
operator token) and an enrichment service on free loopback ports, writes --persons demo persons of
--seed to an NDJSON file (untimed), then each round:
  direct        glimpse import persons FILE, ENRICHMENT_DATABASE_URL set (the service's role), no GLIMPSE_URL
  operator API  glimpse import persons FILE, GLIMPSE_URL and GLIMPSE_OPERATOR_TOKEN set, no database URL
                (the CLI sends the file in parts to POST /operator/imports/persons)
  raw COPY      the rows the import stored, copied out (untimed) and COPY'd into empty tables like
                persons and identities on one connection (timed)
Each import starts from emptied persons, identities and companies tables; in even rounds the
operator API goes first. The imports' wall time is the CLI process's, start to exit. CPU per person:
the CLI (its own count at exit), gateway and enrichment (/proc, over the import), the import's
Postgres backends (application_name ${IMPORT_APPLICATION}, sampled every 50 ms), and the raw COPY's
backend. Target: operator API ≥ ${TARGETS.minApiOverRawCopy}x raw COPY, side by side in each round.
Writes bench/results/imports-<timestamp>.json, and bench/figures/imports.json for a valid run with the defaults.

Options:
  --persons <n>   persons in the file (default 100000)
  --rounds <n>    rounds of the three (default 1)
  --seed <n>      demo data seed (default 7)
  --profile       run gateway and enrichment with --cpu-prof; print where their CPU went
  --skip-build    do not build first (runs whatever is in dist/)
  --skip-infra    do not run infra up (it must be up already)
  --help          this text`;

function parseOptions(argv) {
  const { values, numbers } = suite.parseSuiteArgs(argv, {
    numeric: NUMERIC,
    options: {
      profile: { type: 'boolean', default: false },
      'skip-build': { type: 'boolean', default: false },
      'skip-infra': { type: 'boolean', default: false },
    },
  });
  return { ...numbers, profile: values.profile, build: !values['skip-build'], infra: !values['skip-infra'] };
}

const { progress, out } = suite.suiteOutput(SUITE);

/** The bench database (ensured, migrated) and a pg client on it; infra up first unless told not to. */
async function setUp({ env, opts, cleanups }) {
  if (opts.infra) await require('../scripts/infra/up.js').up();
  if (opts.build) {
    progress('building gateway, enrichment and CLI');
    const { spawnSync } = require('node:child_process');
    const args = ['turbo', 'run', 'build', '--filter=@glimpse/gateway', '--filter=@glimpse/enrichment', '--filter=@glimpse/cli', '--output-logs=errors-only'];
    const res = spawnSync('npx', args, { cwd: path.join(__dirname, '..'), stdio: ['ignore', 2, 2] });
    if (res.status !== 0) throw new Error(`build failed (exit ${res.status ?? res.signal})`);
  }
  const { ensureDatabase, migrate } = require('../shared/db/dist/index.js');
  const pg = require('pg');
  const u = new URL(env.databaseUrl);
  u.pathname = `/${encodeURIComponent(BENCH_DB)}`;
  const databaseUrl = u.toString();
  const { created } = await ensureDatabase(databaseUrl);
  const { applied } = await migrate({ databaseUrl, migrationsDir: path.join(__dirname, '..', 'prisma', 'migrations') });
  progress(`database ${BENCH_DB}: ${created ? 'created' : 'exists'}, ${applied.length} migration(s) applied`);
  const sql = new pg.Client({ connectionString: databaseUrl, application_name: 'bench-imports' });
  await sql.connect();
  cleanups.push(() => sql.end());
  return { databaseUrl, sql, pg };
}

/** The enrichment service and a gateway with an operator API, on free ports. */
async function startServices({ env, databaseUrl, children, opts, profileDir }) {
  const [gatewayPort, enrichmentPort] = await suite.freePorts(2);
  const serviceEnv = suite.serviceEnvBase(databaseUrl);
  const operatorToken = crypto.randomBytes(32).toString('hex');
  const prof = (name) => suite.cpuProfArgs(opts.profile, path.join(profileDir, name));
  const gatewayUrl = suite.urlOf(gatewayPort);
  const enrichmentUrl = suite.urlOf(enrichmentPort);
  progress('starting the enrichment service and a gateway');
  await suite.startServices(children, [
    {
      name: 'enrichment',
      script: 'services/enrichment/dist/main.js',
      env: { ...suite.asService(serviceEnv, 'enrichment'), ENRICHMENT_PORT: String(enrichmentPort) },
      nodeArgs: prof('enrichment'),
      readyUrl: `${enrichmentUrl}/readyz`,
    },
    {
      name: 'gateway',
      script: 'services/gateway/dist/main.js',
      env: {
        ...suite.asService(serviceEnv, 'gateway'),
        PORT: String(gatewayPort),
        ...suite.infraEnv(env),
        ENRICHMENT_URL: enrichmentUrl,
        OPERATOR_TOKEN: operatorToken,
      },
      nodeArgs: prof('gateway'),
      readyUrl: `${gatewayUrl}/readyz`,
    },
  ]);
  return { gatewayUrl, operatorToken, enrichmentDatabaseUrl: suite.asService(serviceEnv, 'enrichment').DATABASE_URL };
}

/** `count` demo persons of `seed` as an NDJSON file (untimed). */
async function writePersons(enrichment, file, count, seed) {
  await pipeline(
    Readable.from(
      (function* lines() {
        for (let i = 0; i < count; i += 1) yield `${JSON.stringify(enrichment.generatePerson(i, seed))}\n`;
      })(),
    ),
    fs.createWriteStream(file),
  );
  return fs.statSync(file).size;
}

/** Every imported person, identity and company gone, so each import starts from the same empty tables. */
async function emptyTables(sql) {
  await sql.query('TRUNCATE enrichment.persons, enrichment.identities, enrichment.companies CASCADE');
  await sql.query('VACUUM ANALYZE enrichment.persons, enrichment.identities, enrichment.companies');
}

/** The CLI's progress lines passed on, at most one every 5 s. */
function progressEvery5s(label) {
  let last = 0;
  return (line) => {
    if (Date.now() - last < 5000 || !line.trim()) return;
    last = Date.now();
    progress(`${label}: ${line}`);
  };
}

/**
 * One `glimpse import persons FILE --json` into emptied tables, `through` the operator API or
 * directly, timed and metered. Resolves the run's figures; throws when it did not import every person.
 * @param {Record<string, any>} options @returns {Promise<any>}
 */
async function timedCliImport({ through, file, count, sql, services, children, dir }) {
  await emptyTables(sql);
  const env =
    through === 'api'
      ? { GLIMPSE_URL: services.gatewayUrl, GLIMPSE_OPERATOR_TOKEN: services.operatorToken, DATABASE_URL: undefined, ENRICHMENT_DATABASE_URL: undefined }
      : { ENRICHMENT_DATABASE_URL: services.enrichmentDatabaseUrl, GLIMPSE_URL: undefined, GLIMPSE_OPERATOR_TOKEN: undefined };
  const stopBackends = watchBackends(sql, IMPORT_APPLICATION);
  const stopMeter = startCpuMeter({ gateway: children.gateway.pid, enrichment: children.enrichment.pid });
  const run = await runCli({
    args: ['import', 'persons', file, '--json'],
    env,
    onLine: progressEvery5s(through === 'api' ? 'operator API' : 'direct'),
    cpuFile: path.join(dir, `cli-cpu-${through}.json`),
  });
  const cpu = stopMeter();
  const backends = await stopBackends();
  if (run.code !== 0) throw new Error(`glimpse import persons (${through}) exited ${run.code}:\n${run.stderrTail}`);
  const report = JSON.parse(run.stdout);
  if (report.imported !== count || report.skipped !== 0)
    throw new Error(`${through}: imported ${report.imported} of ${count}, skipped ${report.skipped} (first error: ${JSON.stringify(report.errors[0])})`);
  const perPerson = (ms) => (ms === null ? null : round(ms / count, 3));
  const serviceMs = (name) => ((cpu.coresPct[name] ?? 0) / 100) * cpu.wallSec * 1000;
  return {
    through,
    wallSec: round(run.wallMs / 1000, 2),
    personsPerSec: Math.round((count / run.wallMs) * 1000),
    cpuMsPerPerson: {
      cli: perPerson(run.cpuMs),
      ...(through === 'api' ? { gateway: perPerson(serviceMs('gateway')), enrichment: perPerson(serviceMs('enrichment')) } : {}),
      postgres: perPerson(backends.seconds * 1000),
    },
    postgresBackends: backends.backends,
    machineBusyPct: cpu.machineBusyPct,
  };
}

/**
 * The raw COPY of the rows the last import stored, with its figures per person.
 * @param {Record<string, any>} options @returns {Promise<any>}
 */
async function timedRawCopy({ pg, databaseUrl, dir, count }) {
  const raw = await rawPersonsCopy({ pg, copy: require('pg-copy-streams'), databaseUrl, dir });
  if (raw.persons !== count) throw new Error(`the raw COPY stored ${raw.persons} of ${count} persons`);
  return {
    through: 'raw',
    wallSec: round(raw.wallMs / 1000, 2),
    personsPerSec: Math.round((count / raw.wallMs) * 1000),
    identities: raw.identities,
    copyMiB: raw.copyMiB,
    cpuMsPerPerson: { client: round(raw.clientCpuMs / count, 3), postgres: raw.postgresCpuMs === null ? null : round(raw.postgresCpuMs / count, 3) },
  };
}

/**
 * One round: both imports (in the order given), then the raw COPY; the ratios side by side.
 * @param {Record<string, any>} options @returns {Promise<any>}
 */
async function measureRound({ index, order, ...common }) {
  const runs = {};
  for (const through of order) {
    progress(`round ${index}: import through ${through === 'api' ? 'the operator API' : 'the direct path'}`);
    runs[through] = await timedCliImport({ through, ...common });
  }
  progress(`round ${index}: raw COPY of the same rows`);
  runs.raw = await timedRawCopy(common);
  return {
    round: index,
    order,
    ...runs,
    apiOverRaw: round(runs.api.personsPerSec / runs.raw.personsPerSec, 2),
    directOverRaw: round(runs.direct.personsPerSec / runs.raw.personsPerSec, 2),
    apiOverDirect: round(runs.api.personsPerSec / runs.direct.personsPerSec, 2),
  };
}

const cpuText = (cpu) =>
  Object.entries(cpu)
    .map(([k, v]) => `${k} ${v}`)
    .join(', ');

function printRound(r) {
  out(`round ${r.round} (${r.order.join(' then ')}, then raw)`);
  out(
    `  raw COPY      ${String(r.raw.personsPerSec).padStart(7)} persons/s  ${r.raw.wallSec} s (${r.raw.copyMiB} MiB of COPY text, ${r.raw.identities} identities); CPU ms/person: ${cpuText(r.raw.cpuMsPerPerson)}`,
  );
  for (const [label, key, ratio] of [
    ['direct', 'direct', `${r.directOverRaw}x raw`],
    ['operator API', 'api', `${r.apiOverRaw}x raw, ${r.apiOverDirect}x direct`],
  ]) {
    const m = r[key];
    out(
      `  ${label.padEnd(13)} ${String(m.personsPerSec).padStart(7)} persons/s  ${m.wallSec} s = ${ratio}; CPU ms/person: ${cpuText(m.cpuMsPerPerson)} (${m.postgresBackends} backends); machine ${m.machineBusyPct} % busy`,
    );
  }
}

async function run(argv) {
  const begun = suite.beginRun(SUITE, argv, parseOptions);
  if (begun.exitCode !== undefined) return begun.exitCode;
  const { opts, env, startedAt, stamp, machine, problems, children, result } = begun;
  const profileDir = path.join(RESULTS_DIR, `profiles-imports-${stamp}`);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'glimpse-bench-imports-'));
  begun.cleanups.push(() => fs.rmSync(dir, { recursive: true, force: true }));
  result.params = { persons: opts.persons, rounds: opts.rounds, seed: opts.seed, profile: opts.profile, database: BENCH_DB };
  result.rounds = [];

  await suite.runPhases({ ...begun, progress, reportCleanupErrors: true }, async () => {
    const { databaseUrl, sql, pg } = await setUp({ env, opts, cleanups: begun.cleanups });
    const enrichment = require('../services/enrichment/dist/index.js');
    const services = await startServices({ env, databaseUrl, children, opts, profileDir });
    const file = path.join(dir, 'persons.ndjson');
    progress(`writing ${opts.persons} persons of seed ${opts.seed} to ${file} (untimed)`);
    result.fileMiB = Math.round((await writePersons(enrichment, file, opts.persons, opts.seed)) / 1048576);
    suite.printHeader(out, `persons import through the operator API (${opts.persons} persons, ${result.fileMiB} MiB of NDJSON)`, machine, result.params);
    for (let i = 1; i <= opts.rounds; i += 1) {
      const order = i % 2 === 1 ? ['direct', 'api'] : ['api', 'direct'];
      const r = await measureRound({ index: i, order, file, count: opts.persons, sql, services, children, dir, pg, databaseUrl });
      result.rounds.push(r);
      printRound(r);
      if (r.apiOverRaw < TARGETS.minApiOverRawCopy) out(`  target   operator API ≥ ${TARGETS.minApiOverRawCopy}x raw COPY: missed (${r.apiOverRaw}x)`);
    }
    await emptyTables(sql);
  });
  if (opts.profile) suite.reportProfiles({ dir: profileDir, services: { gateway: [null, ''], enrichment: [null, ''] }, result, problems, out });

  const best = result.rounds.length ? Math.max(...result.rounds.map((r) => r.apiOverRaw)) : null;
  suite.closeResult(
    result,
    { apiOverRawCopy: { target: `>= ${TARGETS.minApiOverRawCopy}x`, actual: best, met: best !== null && best >= TARGETS.minApiOverRawCopy } },
    problems,
  );
  suite.writeAndPrintSummary({
    result,
    fields: {
      persons: opts.persons,
      fileMiB: result.fileMiB,
      rounds: result.rounds.map((r) => ({
        rawPerSec: r.raw.personsPerSec,
        directPerSec: r.direct.personsPerSec,
        apiPerSec: r.api.personsPerSec,
        apiOverRaw: r.apiOverRaw,
        directOverRaw: r.directOverRaw,
        apiOverDirect: r.apiOverDirect,
        apiCpuMsPerPerson: r.api.cpuMsPerPerson,
      })),
    },
    startedAt,
    problems,
    targetsLine: `targets  operator API ≥ ${TARGETS.minApiOverRawCopy}x raw COPY, side by side: ${best === null ? 'not measured' : `${best}x at best of ${result.rounds.length}`}`,
    out,
    latest: opts.persons === NUMERIC.persons[0] && opts.seed === NUMERIC.seed[0] && !opts.profile,
  });
  return result.valid ? 0 : 1;
}

module.exports = { description, help, run };
