// What every benchmark suite does around its own phases: options, the loopback check, infra up,
// build, the bench database (ensured, migrated, a Prisma and a pg client), the child services,
// the report's common lines, shutdown with the exit-code check, and the result file's closing lines.
'use strict';
const { spawnSync } = require('node:child_process');
const crypto = require('node:crypto');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { openServiceDbs } = require('../../scripts/service-dbs.js');
const { parseArgs } = require('node:util');
const { readEnv, isLocalHost, serviceDatabaseUrl } = require('../../scripts/infra/env.js');
const { machineInfo, formatMachine } = require('./machine.js');
const { round } = require('./stats.js');
const { startChild, waitReady, stopChild, freePort, LOOPBACK, REPO_ROOT } = require('./processes.js');
const { writeResult } = require('./results.js');
const { summarizeProfile, formatProfile } = require('./cpu-profile.js');

class UsageError extends Error {}

/** A suite's own database beside DATABASE_URL's (glimpse → glimpse_bench_events), so runs never share one. */
function benchDatabaseName(suite) {
  return `${decodeURIComponent(new URL(readEnv().databaseUrl).pathname.slice(1)) || 'glimpse'}_bench_${suite}`;
}

/** The saturation runs' options every suite takes, as parseSuiteArgs's `numeric` wants them: name: [default, min, max]. */
const SATURATION_NUMERIC = {
  duration: [10, 1, 120],
  warmup: [2, 0, 30],
  connections: [50, 1, 1000],
};

/**
 * Parses `argv` strictly: `numeric` is { name: [default, min, max] } (whole numbers, every one
 * bounded), `options` the other parseArgs options. Returns { values, numbers }; throws UsageError.
 * @returns {{ values: Record<string, any>, numbers: Record<string, any> }}
 */
function parseSuiteArgs(argv, { numeric, options }) {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      options: { ...Object.fromEntries(Object.keys(numeric).map((k) => [k, { type: 'string' }])), ...options },
      strict: true,
      allowPositionals: false,
    });
  } catch (err) {
    throw new UsageError(err.message);
  }
  const { values } = parsed;
  const numbers = {};
  for (const [name, [fallback, min, max]] of Object.entries(numeric)) {
    const raw = values[name];
    if (raw === undefined) {
      numbers[name] = fallback;
      continue;
    }
    const n = Number(raw);
    if (!Number.isInteger(n) || n < min || n > max) throw new UsageError(`--${name} must be a whole number from ${min} to ${max}, got "${raw}"`);
    numbers[name] = n;
  }
  return { values, numbers };
}

/** progress (stderr, prefixed with the suite) and out (the report, stdout). */
function suiteOutput(suite) {
  return {
    progress: (message) => process.stderr.write(`[bench:${suite}] ${message}\n`),
    out: (line = '') => process.stdout.write(`${line}\n`),
  };
}

function assertLocalInfra(env) {
  const hosts = [
    ['DATABASE_URL', new URL(env.databaseUrl).hostname],
    ['REDIS_URL', new URL(env.redisUrl).hostname],
    ...env.kafkaBrokers.map((b) => ['KAFKA_BROKERS', b.replace(/:\d+$/, '')]),
  ];
  for (const [name, host] of hosts) {
    if (!isLocalHost(host)) throw new UsageError(`${name} points at ${host}: the benchmark only runs against loopback services`);
  }
}

/**
 * Options, environment and the run's bookkeeping. Returns { exitCode: 2 } after printing why on bad
 * usage or non-loopback infra; otherwise { opts, env, startedAt, stamp, machine, problems,
 * children, shutdown, cleanups, result }.
 */
function beginRun(suite, argv, parseOptions) {
  let opts;
  try {
    opts = parseOptions(argv);
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    console.error(`bench ${suite}: ${err.message} (see --help)`);
    return { exitCode: 2 };
  }
  const env = readEnv();
  try {
    assertLocalInfra(env);
  } catch (err) {
    console.error(`bench ${suite}: ${err.message}`);
    return { exitCode: 2 };
  }
  const startedAt = new Date();
  const machine = machineInfo(startedAt);
  return {
    opts,
    env,
    startedAt,
    stamp: startedAt.toISOString().replace(/[:.]/g, '-'),
    machine,
    problems: [],
    children: {},
    shutdown: {},
    cleanups: [],
    result: { suite, date: startedAt.toISOString(), machine, params: null },
  };
}

function databaseUrlFor(databaseUrl, name) {
  const u = new URL(databaseUrl);
  u.pathname = `/${encodeURIComponent(name)}`;
  return u.toString();
}

/** Builds only what the benchmark runs (turbo adds their workspace dependencies). */
function build(filters, progress) {
  progress(`building (npx turbo run build ${filters.map((f) => `--filter=${f}`).join(' ')})`);
  const args = ['turbo', 'run', 'build', ...filters.map((f) => `--filter=${f}`), '--output-logs=errors-only'];
  const res = spawnSync('npx', args, { cwd: REPO_ROOT, stdio: ['ignore', 2, 2] });
  if (res.status !== 0) throw new Error(`build failed (exit ${res.status ?? res.signal})`);
}

/**
 * Infra up, the build (unless `doBuild` is false), then database `name` ensured and migrated, with a
 * Prisma client per service (`dbs.identity`, `dbs.playbook` …, opened on first use, pools of
 * `poolSize`) and a pg client, all closed by `cleanups`. Returns { databaseUrl, dbs, sql, pg }.
 */
async function setUpInfraAndDatabase({ env, name, poolSize, buildFilters, doBuild, progress, cleanups }) {
  progress('infra up');
  await require('../../scripts/infra/up.js').up();
  if (doBuild) build(buildFilters, progress);

  // Required only now: dist/ exists after the build.
  const { ensureDatabase, migrate } = require('../../shared/db/dist/index.js');
  const pg = require('pg');
  const databaseUrl = databaseUrlFor(env.databaseUrl, name);
  const { created } = await ensureDatabase(databaseUrl);
  const { applied } = await migrate({ databaseUrl, migrationsDir: path.join(REPO_ROOT, 'prisma', 'migrations') });
  progress(`database ${name}: ${created ? 'created' : 'exists'}, ${applied.length} migration(s) applied`);

  const dbs = openServiceDbs(databaseUrl, poolSize);
  cleanups.push(() => dbs.disconnect());
  const sql = new pg.Client({ connectionString: databaseUrl });
  await sql.connect();
  cleanups.push(() => sql.end());
  return { databaseUrl, dbs, sql, pg };
}

/**
 * What every service child gets; the internal tokens are random (production refuses the development
 * ones): INTERNAL_TOKEN is the gateway's (and the benchmarks' own internal calls), INTERNAL_TOKENS the
 * callers the internal services accept (each keeps those it accepts).
 */
function serviceEnvBase(databaseUrl) {
  const internalToken = crypto.randomBytes(24).toString('hex');
  return {
    NODE_ENV: 'production',
    LOG_LEVEL: 'warn',
    DATABASE_URL: databaseUrl,
    HOST: LOOPBACK,
    INTERNAL_TOKEN: internalToken,
    INTERNAL_TOKENS: `gateway=${internalToken}`,
  };
}

/**
 * A service child's environment as that service's own Postgres role, limited to its schema.
 * @param {Record<string, string>} env
 * @param {'gateway' | 'playbook' | 'enrichment' | 'webhooks' | 'visitors'} service
 */
function asService(env, service) {
  const own = { ...env, DATABASE_URL: serviceDatabaseUrl(env.DATABASE_URL, service) };
  return { ...productionSecrets(service), ...own };
}

/**
 * The secrets a service refuses to start without in production, random for a bench run: the
 * gateway's link-token secret, the enrichment service's key of billed persons' hashes.
 * @param {string} service
 */
function productionSecrets(service) {
  const random = () => crypto.randomBytes(32).toString('hex');
  if (service === 'gateway') return { LINK_TOKEN_SECRET: random() };
  if (service === 'enrichment') return { ENRICHMENT_BILLING_KEY: random() };
  return {};
}

/** Where a child's infra is: Redis and the Kafka brokers. */
function infraEnv(env) {
  return { REDIS_URL: env.redisUrl, KAFKA_BROKERS: env.kafkaBrokers.join(',') };
}

/** node arguments for a CPU profile of a child into `dir`, when `enabled`. */
function cpuProfArgs(enabled, dir) {
  return enabled ? ['--cpu-prof', '--cpu-prof-dir', dir] : [];
}

const freePorts = (n) => Promise.all(Array.from({ length: n }, () => freePort()));
const urlOf = (port) => `http://${LOOPBACK}:${port}`;

/**
 * Starts each of `specs` ({ name, script, env, nodeArgs, readyUrl }) in order into `children`, then
 * waits until all are ready. `bare: port` adds the bare express endpoint last.
 */
async function startServices(children, specs) {
  for (const { name, script, env, nodeArgs } of specs) children[name] = startChild({ name, script, env, nodeArgs });
  await Promise.all(specs.map((s) => waitReady(children[s.name], s.readyUrl)));
}

function bareSpec(port) {
  return { name: 'bare', script: 'bench/lib/bare-server.js', env: { PORT: String(port) }, readyUrl: `${urlOf(port)}/readyz` };
}

function printHeader(out, title, machine, params) {
  out(title);
  out(formatMachine(machine));
  out(`params   ${JSON.stringify(params)}`);
  out();
}

/** One saturation run's report line, the label padded to `width`. */
function saturationLine(label, m, width) {
  return (
    `${label.padEnd(width)} ${String(m.reqPerSec).padStart(7)} req/s   p50 ${String(m.latencyMs.p50).padStart(4)} ms   p99 ${String(m.latencyMs.p99).padStart(4)} ms   max ${m.latencyMs.max} ms   ` +
    `requests ${m.requests}, 2xx ${m.ok}, errors ${m.errors}, timeouts ${m.timeouts}, non-2xx ${m.non2xx}`
  );
}

/** CPU ms of `name` per request of a measured run (from its cpu meter). */
function cpuMsPerRequest(measured, name) {
  const c = measured.cpu;
  return round(((c.coresPct[name] / 100) * c.wallSec * 1000) / measured.requests, 3);
}

/** A problem and a WARNING line for each warm-up or measured run of `entries` ([label, run]) with errors, timeouts or non-2xx. */
function flagFailedRuns(entries, problems, out) {
  for (const [label, r] of entries) {
    for (const [phase, m] of [
      ['warm-up', r.warmup],
      ['measured', r.measured],
    ]) {
      if (m && (m.errors || m.timeouts || m.non2xx)) {
        const msg = `${label} ${phase}: ${m.errors} errors, ${m.timeouts} timeouts, ${m.non2xx} non-2xx (status ${JSON.stringify(m.statusCodes)})${m.firstError ? `, first error: ${m.firstError}` : ''}`;
        problems.push(msg);
        out(`WARNING  ${msg}: not a valid run`);
      }
    }
  }
}

/**
 * SIGTERM to every child (each must exit 0), then the cleanups in reverse; a failing cleanup is a
 * problem when `reportCleanupErrors`. Entries of `shutdown` named "… (paused)" (stopped earlier)
 * must have exited cleanly too. Sets result.shutdown.
 */
async function shutDown({ children, shutdown, cleanups, problems, result, reportCleanupErrors }) {
  await Promise.all(
    Object.entries(children).map(async ([name, child]) => {
      const exit = await stopChild(child);
      shutdown[name] = exit;
      if (!exit.graceful)
        problems.push(
          `${name} did not shut down cleanly on SIGTERM: code ${exit.code}, signal ${exit.signal}${exit.note ? `, ${exit.note}` : ''}\n${child.tail()}`,
        );
    }),
  );
  for (const cleanup of cleanups.reverse()) {
    await Promise.resolve()
      .then(cleanup)
      .catch((err) => {
        if (reportCleanupErrors) problems.push(`cleanup: ${err.message}`);
      });
  }
  for (const [name, exit] of Object.entries(shutdown)) {
    if (name.endsWith('(paused)') && !exit.graceful) problems.push(`${name} did not shut down cleanly on SIGTERM: code ${exit.code}, signal ${exit.signal}`);
  }
  result.shutdown = Object.fromEntries(Object.entries(shutdown).map(([k, v]) => [k, v.code ?? v.signal]));
}

/**
 * Runs the suite's phases; an error ends them as a problem. Then, whatever happened, shutDown.
 * `run` is beginRun's value plus `progress` and `reportCleanupErrors`.
 */
async function runPhases(run, phases) {
  const { problems, progress } = run;
  try {
    await phases();
  } catch (err) {
    problems.push(err.message);
    progress(`failed: ${err.stack || err.message}`);
  } finally {
    await shutDown(run);
  }
}

/** The newest .cpuprofile in `dir` (a service's last run), or undefined. */
function lastProfile(dir) {
  const file = fs.existsSync(dir)
    ? fs
        .readdirSync(dir)
        .filter((f) => f.endsWith('.cpuprofile'))
        .sort()
        .at(-1)
    : undefined;
  return file && path.join(dir, file);
}

/**
 * Summarizes the last .cpuprofile in `dir`/<service> for each of `services` ({ service: [window, label] })
 * into result.profile and prints it; a failure is a problem.
 */
function reportProfiles({ dir, services, result, problems, out }) {
  try {
    result.profile = {};
    for (const [service, [window, label]] of Object.entries(services)) {
      const file = lastProfile(path.join(dir, service));
      if (!file) continue;
      result.profile[service] = summarizeProfile(file, { window });
      out();
      out(`${service} CPU profile (${window ? label : 'whole process lifetime'})`);
      out(formatProfile(result.profile[service]));
    }
  } catch (err) {
    problems.push(`profile: ${err.message}`);
  }
}

/** Sets result.targets, loadAverageAfter, valid and problems. */
function closeResult(result, targets, problems) {
  result.targets = targets;
  result.loadAverageAfter = os.loadavg().map((l) => round(l, 2));
  result.valid = problems.length === 0;
  result.problems = problems;
}

/** The summary's first fields: suite, date, machine, 1-minute load before and after. */
function summaryHead(result) {
  const { machine } = result;
  return {
    suite: result.suite,
    date: result.date,
    machine: `${machine.cpuCount}x ${machine.cpuModel}, ${machine.totalMemoryGiB} GiB, node ${machine.node}, ${machine.os}`,
    loadAvg1m: { before: machine.loadAverage[0], after: result.loadAverageAfter[0] },
  };
}

/**
 * The summary (summaryHead, the suite's `fields`, shutdown and valid) goes into the result, which is
 * written to its file; then the closing lines (`targetsLine` when given) and the summary as JSON.
 */
function writeAndPrintSummary({ result, fields, startedAt, problems, targetsLine, out, latest = true }) {
  const summary = { ...summaryHead(result), ...fields, shutdown: result.shutdown, valid: result.valid };
  result.summary = summary;
  // Only a valid run (and, for a suite that says so, one with its default parameters) replaces the committed latest figures.
  const file = writeResult(result.suite, result, startedAt, { latest: result.valid && latest });
  out();
  if (targetsLine) out(targetsLine);
  out(
    `load     ${result.machine.loadAverage.join(' ')} before, ${result.loadAverageAfter.join(' ')} after (1/5/15 min; other work on this machine skews every figure)`,
  );
  out(
    `shutdown ${
      Object.entries(result.shutdown)
        .map(([k, v]) => `${k} exit ${v}`)
        .join(', ') || 'no children started'
    }`,
  );
  for (const p of problems) out(`PROBLEM  ${p}`);
  out(`results  ${path.relative(process.cwd(), file)}`);
  out(JSON.stringify(summary));
}

module.exports = {
  benchDatabaseName,
  UsageError,
  SATURATION_NUMERIC,
  parseSuiteArgs,
  suiteOutput,
  beginRun,
  setUpInfraAndDatabase,
  serviceEnvBase,
  asService,
  infraEnv,
  cpuProfArgs,
  freePorts,
  urlOf,
  startServices,
  bareSpec,
  printHeader,
  saturationLine,
  cpuMsPerRequest,
  flagFailedRuns,
  shutDown,
  runPhases,
  reportProfiles,
  lastProfile,
  closeResult,
  writeAndPrintSummary,
};
