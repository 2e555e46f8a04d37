// The lookups benchmark: the import's throughput beside a raw COPY of the same rows; the details
// and enrichment lookups through the real gateway and enrichment service over the imported demo
// dataset, against a bare express endpoint on the same machine, with the CPU each process spends
// per lookup; the p99 of enrichment at a fixed rate; Prisma against raw pg for the enrichment's own
// statement; and, past 100 000 persons, lookup latency and table sizes at 100 000 and at the full
// size side by side. Runs the built services (dist/).
'use strict';
const crypto = require('node:crypto');
const path = require('node:path');
const { summarize, round } = require('./lib/stats.js');
const { openLoop } = require('./lib/open-loop.js');
const { loadRun } = require('./lib/request-load.js');
const { queryRun } = require('./lib/query-load.js');
const { timedCopyImport, rawCopy } = require('./lib/copy-import.js');
const { probeLatency } = require('./lib/growth.js');
const { databaseBackendPids, tableSizes, mib } = require('./lib/pg-backends.js');
const { RESULTS_DIR } = require('./lib/results.js');
const { startCpuMeter, infraPids } = require('./lib/cpu-usage.js');
const suite = require('./lib/suite.js');

const description =
  'import persons/s vs raw COPY; details/enrichment lookups vs a bare endpoint (req/s, p50/p99, CPU ms/lookup), p99 at 500 req/s, Prisma vs pg; growth to --persons';

const BENCH_DB = suite.benchDatabaseName('lookups');
const TARGETS = { maxCpuMsPerEnrichment: 2, maxP99Ms: 50, atRatePerSec: 500, maxPrismaOverPg: 1.3, minImportPerSec: 10_000, minImportOverRawCopy: 0.3 };
// Past this many persons (--growth-at) the run measures growth: lookups at this size, then at --persons.
const GROWTH_CHECKPOINT = 100_000;
const SIZED_TABLES = ['persons', 'identities', 'visitors', 'usage_ledger'];
/** @type {('visitors:read' | 'enrichment:read')[]} */
const SCOPES = ['visitors:read', 'enrichment:read'];
const DEFAULT_PACED_RATES = `${TARGETS.atRatePerSec},250,100`;

// name: [default, min, max] — every phase is bounded.
const NUMERIC = {
  persons: [100_000, 1000, 2_000_000],
  seed: [42, 0, 2 ** 31 - 1],
  sample: [20_000, 100, 200_000],
  'slice-persons': [10_000, 100, 100_000],
  ...suite.SATURATION_NUMERIC,
  'paced-duration': [10, 1, 120],
  'db-concurrency': [32, 1, 256],
  'db-pool': [10, 1, 64],
  'db-duration': [10, 1, 120],
  'db-queries': [50_000, 100, 1_000_000],
  'probe-rate': [200, 10, 2000],
  'growth-at': [GROWTH_CHECKPOINT, 1000, 1_000_000],
  'probe-duration': [10, 1, 120],
};

const help = `Usage: npm run bench:lookups [-- options]
       node scripts/bench.js lookups [options]

${description}.
One run: infra up, build (turbo: gateway, enrichment and their dependencies), the ${BENCH_DB} database
(created and migrated if needed), a new account with an API key (${SCOPES.join(', ')}), and as child processes
on 127.0.0.1 the gateway, the enrichment service and a bare express 5 GET /bare. Then:
  import         up to ${GROWTH_CHECKPOINT} persons: skipped when the database already holds exactly --persons demo persons
                 of --seed (row count, sampled records equal to what the seed generates); the import's rate is then
                 measured on a fresh --slice-persons slice of another seed, deleted afterwards. Each import writes
                 the persons to an NDJSON file first (untimed), imports it as glimpse import persons does (COPY),
                 then the same rows are copied out and COPYed raw into empty tables shaped like persons and
                 identities: the two rates side by side.
  growth         when --persons > ${GROWTH_CHECKPOINT}: the table is rebuilt: ${GROWTH_CHECKPOINT} persons, table and index sizes, lookup
                 latency (enrichment and details, --probe-rate/s for --probe-duration s each, persons drawn across
                 the table); then the rest up to --persons, the same again; printed side by side
  1. bare        autocannon GET /bare                         (warm-up, then --duration s, --connections)
  2. details     autocannon GET /visitors/:id/details         (same)
  3. enrich-email autocannon POST /visitors/enrichment {email} (same)
  4. enrich-phone autocannon POST /visitors/enrichment {phone} (same; phones in assorted US formats)
  5. paced       enrichment {email} at each of --paced-rates for --paced-duration s, evenly spaced, open loop
                 (the first rate is the p99 target's figure), then the first rate through autocannon's overallRate
  6. db          in-process, --db-concurrency queries in flight on --db-pool connections, --db-duration s or
                 --db-queries each: person by id (Prisma findUnique, raw pg) and the enrichment's statement
                 (identity → record text, billed: Prisma $queryRaw as the service sends it, raw pg)
Lookups ask for --sample persons spread over the dataset, in a shuffled order. CPU per lookup counts the
gateway, the enrichment service and the Postgres backends of ${BENCH_DB} (not other databases' sessions).
Then SIGTERM to the children (each must exit 0). Targets: ≤ ${TARGETS.maxCpuMsPerEnrichment} ms CPU per enrichment (gateway +
enrichment + Postgres); enrichment p99 < ${TARGETS.maxP99Ms} ms at ${TARGETS.atRatePerSec} req/s; Prisma within ${TARGETS.maxPrismaOverPg}x raw pg;
import ≥ ${TARGETS.minImportPerSec} persons/s and ≥ ${TARGETS.minImportOverRawCopy}x raw COPY.
Prints a report and a one-line JSON summary; writes it to bench/results/lookups-<timestamp>.json.

Options:
  --persons <n>         persons in the dataset (default 100000; more measures growth, e.g. 1000000)
  --seed <n>            demo seed of the dataset (default 42)
  --sample <n>          persons given a visitor and used for lookups (default 20000)
  --slice-persons <n>   size of the import-throughput slice when the dataset import is skipped (default 10000)
  --reimport            import the dataset again even when it is there (truncates persons first)
  --duration <s>        measured seconds per saturation run (default 10)
  --warmup <s>          warm-up seconds before each saturation run, discarded (default 2)
  --connections <n>     autocannon connections (default 50)
  --paced-rates <list>  requests per second of the paced runs, comma-separated, the target's first (default ${DEFAULT_PACED_RATES})
  --paced-duration <s>  seconds of the paced phase (default 10)
  --growth-at <n>       the first growth checkpoint (default ${GROWTH_CHECKPOINT})
  --probe-rate <n>      requests per second of the growth probes (default 200)
  --probe-duration <s>  seconds of each growth probe (default 10)
  --db-concurrency <n>  queries in flight in the db phase (default 32)
  --db-pool <n>         connections of each client in the db phase (default 10, as the enrichment service)
  --db-duration <s>     longest run per db query kind and client (default 10)
  --db-queries <n>      most queries per db run (default 50000)
  --no-phone            skip the phone enrichment run
  --profile             run gateway and enrichment service with --cpu-prof; print where their CPU time went
                        during the measured enrich-email run
  --skip-build          do not build first (runs whatever is in dist/)
  --check-targets       exit 1 when a target is missed (otherwise only an invalid run exits non-zero)
  --help                this text
Exit status: 0 valid run, 1 failure (errors, non-2xx, lookups that miss, unclean shutdown), 2 bad usage.`;

function parseOptions(argv) {
  const { values, numbers } = suite.parseSuiteArgs(argv, {
    numeric: NUMERIC,
    options: {
      'paced-rates': { type: 'string', default: DEFAULT_PACED_RATES },
      reimport: { type: 'boolean', default: false },
      'no-phone': { type: 'boolean', default: false },
      profile: { type: 'boolean', default: false },
      'skip-build': { type: 'boolean', default: false },
      'check-targets': { type: 'boolean', default: false },
    },
  });
  /** @type {Record<string, any>} */
  const opts = {
    reimport: values.reimport,
    phone: !values['no-phone'],
    profile: values.profile,
    build: !values['skip-build'],
    checkTargets: values['check-targets'],
    ...numbers,
  };
  opts.sample = Math.min(opts.sample, opts.persons);
  opts.pacedRates = values['paced-rates']
    .split(',')
    .map((r) => r.trim())
    .filter(Boolean)
    .map(Number);
  if (opts.pacedRates.length === 0 || opts.pacedRates.length > 5 || !opts.pacedRates.every((r) => Number.isInteger(r) && r >= 1 && r <= 5000)) {
    throw new suite.UsageError(`--paced-rates takes 1 to 5 whole numbers from 1 to 5000, comma-separated, got "${values['paced-rates']}"`);
  }
  return opts;
}

const { progress, out } = suite.suiteOutput('lookups');

// Only what the benchmark runs (turbo adds their workspace dependencies).
const BUILD_FILTERS = ['@glimpse/gateway', '@glimpse/enrichment'];

/** The CLI's demoVisitorId (tools/cli/src/commands/imports.ts): the i-th demo person's visitor id for an account. */
function demoVisitorId(accountId, index) {
  return crypto.createHash('sha256').update(`${accountId}:${index}`).digest('hex').slice(0, 24);
}

/** A small seeded generator (mulberry32), so the lookup order is the same on every run. */
function seededRandom(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function shuffled(list, seed) {
  const random = seededRandom(seed);
  const copy = [...list];
  for (let i = copy.length - 1; i > 0; i -= 1) {
    const j = Math.floor(random() * (i + 1));
    [copy[i], copy[j]] = [copy[j], copy[i]];
  }
  return copy;
}

/** Cycles through a list: a lookup source that never repeats within one pass. */
function cycler(list) {
  let i = 0;
  return () => {
    const item = list[i];
    i = (i + 1) % list.length;
    return item;
  };
}

const PROBES = 64;

/** True when the persons table holds exactly the demo dataset (count, and sampled records as the seed generates them). */
async function holdsDataset(sql, enrichment, { persons, seed }) {
  // Rows imported before details were stored (details null) are served the slow way: not the dataset.
  const { rows: counts } = await sql.query('SELECT count(*) AS n, count(details) AS served FROM persons');
  const count = Number(counts[0].n);
  if (count !== persons || Number(counts[0].served) !== count) return { ok: false, count };
  const indexes = new Set([0, persons - 1]);
  const random = seededRandom(seed ^ 0x51ed);
  while (indexes.size < Math.min(PROBES, persons)) indexes.add(Math.floor(random() * persons));
  const records = [...indexes].map((i) => enrichment.generatePerson(i, seed));
  // jsonb equality ignores key order and whitespace: the stored record is the generated one.
  const { rows } = await sql.query(
    'SELECT count(*) AS n FROM persons p JOIN unnest($1::text[], $2::jsonb[]) AS t(id, record) ON p.id = t.id AND p.record::jsonb = t.record',
    [records.map((r) => r.profile.id), records.map((r) => JSON.stringify(r))],
  );
  return { ok: Number(rows[0].n) === records.length, count };
}

async function* lineStream(items, toLine) {
  for (const item of items) yield toLine(item);
}

async function run(argv) {
  const begun = suite.beginRun('lookups', argv, parseOptions);
  if (begun.exitCode !== undefined) return begun.exitCode;
  const { opts, env, startedAt, stamp, machine, problems, children, cleanups, result } = begun;
  const profileDir = path.join(RESULTS_DIR, `profiles-lookups-${stamp}`);

  await suite.runPhases({ ...begun, progress, reportCleanupErrors: true }, async () => {
    const { databaseUrl, dbs, sql, pg } = await suite.setUpInfraAndDatabase({
      env,
      name: BENCH_DB,
      poolSize: 4,
      buildFilters: BUILD_FILTERS,
      doBuild: opts.build,
      progress,
      cleanups,
    });
    // Required only now: dist/ exists after the build.
    const { createAccount, createApiKey } = require('../shared/auth/dist/index.js');
    const enrichment = require('../services/enrichment/dist/index.js');

    result.params = {
      persons: opts.persons,
      seed: opts.seed,
      sample: opts.sample,
      durationSec: opts.duration,
      warmupSec: opts.warmup,
      connections: opts.connections,
      pipelining: 1,
      pacedRatesPerSec: opts.pacedRates,
      pacedDurationSec: opts['paced-duration'],
      dbConcurrency: opts['db-concurrency'],
      dbPool: opts['db-pool'],
      dbDurationSec: opts['db-duration'],
      dbMaxQueries: opts['db-queries'],
      profile: opts.profile,
      database: BENCH_DB,
    };

    // 1. An account with an API key, and the services (idle while the dataset is imported).
    const account = await createAccount(dbs.identity, `bench lookups ${startedAt.toISOString()}`);
    // The account goes at the end with its visitors, key and usage (ON DELETE CASCADE), so runs do not pile up.
    cleanups.push(() => sql.query('DELETE FROM accounts WHERE id = $1', [account.id]));
    const apiKey = await createApiKey(dbs.identity, account.id, SCOPES);
    const [gatewayPort, enrichmentPort, barePort] = await suite.freePorts(3);
    const serviceEnv = suite.serviceEnvBase(databaseUrl);
    const prof = (name) => suite.cpuProfArgs(opts.profile, path.join(profileDir, name));
    progress('starting gateway, enrichment service and bare endpoint');
    const gatewayUrl = suite.urlOf(gatewayPort);
    const bareUrl = suite.urlOf(barePort);
    const enrichmentUrl = suite.urlOf(enrichmentPort);
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
        // The bench measures throughput with one API key: its rate limit must not be what it measures.
        env: {
          ...suite.asService(serviceEnv, 'gateway'),
          PORT: String(gatewayPort),
          ...suite.infraEnv(env),
          ENRICHMENT_URL: enrichmentUrl,
          LOOKUPS_RATE_LIMIT_PER_SECOND: String(1_000_000_000),
        },
        nodeArgs: prof('gateway'),
        readyUrl: `${gatewayUrl}/readyz`,
      },
      suite.bareSpec(barePort),
    ]);
    // Postgres CPU is the backends of this database, read as each measured run starts (pools connect lazily).
    let pgPids = [];
    const refreshPgPids = async () => {
      pgPids = await databaseBackendPids(sql, BENCH_DB);
    };
    const processes = (extra = {}) => ({ ...infraPids(), ...extra, postgres: pgPids });

    // 2. The dataset, and the import's throughput beside a raw COPY of the same rows.
    const showImport = (what) => {
      let last = 0;
      const t0 = Date.now();
      return (r) => {
        if (Date.now() - last < 5000) return;
        last = Date.now();
        progress(`${what}: ${r.imported} imported (${Math.round((r.imported / (Date.now() - t0)) * 1000)}/s)`);
      };
    };
    const copyStreams = require('pg-copy-streams');
    /** Imports [from, from + count) of `seed` and COPYs the same rows raw; both meters include the import's backend. */
    const measuredImport = async ({ seed, from, count, what }) => {
      // The importer's Postgres backend opens with its first chunk and closes with the import, so no
      // meter sees it whole: the import's Postgres CPU is not attributed (machine busy % shows the total).
      const importMeter = () => startCpuMeter({ importer: process.pid });
      const run = await timedCopyImport({
        enrichment,
        databaseUrl,
        seed,
        from,
        count,
        onProgress: showImport(what),
        onWriting: (m) => progress(`${what}: ${m}`),
        startMeter: importMeter,
      });
      if (run.report.skipped) problems.push(`import: ${run.report.skipped} records skipped (first: ${JSON.stringify(run.report.errors[0])})`);
      progress(`${what}: raw COPY of the same ${run.ids.length} persons`);
      const raw = await rawCopy({ pg, copy: copyStreams, databaseUrl, ids: run.ids });
      const { ids, report, ...summary } = run;
      progress(`${what}: ${summary.personsPerSec} persons/s; raw COPY ${raw.personsPerSec} persons/s of ${raw.persons}`);
      return {
        ids,
        summary: {
          ...summary,
          imported: report.imported,
          skipped: report.skipped,
          rawCopy: raw,
          overRawCopy: round(summary.personsPerSec / raw.personsPerSec, 2),
        },
      };
    };
    const growthAt = opts['growth-at'];
    const growth = opts.persons > growthAt;
    const imports = [];
    const checkpoints = [];
    // A sample over the first `size` persons, with visitors of the bench account (imported as needed).
    const visitorsDone = new Set();
    const sampleOf = async (size, count) => {
      const stride = size / count;
      const picked = Array.from({ length: count }, (_, k) => {
        const index = Math.floor(k * stride);
        const person = enrichment.generatePerson(index, opts.seed);
        return {
          index,
          id: person.profile.id,
          email: person.profile.email ?? person.traits.work_email,
          phone: person.traits.mobile_phone,
          visitorId: demoVisitorId(account.id, index),
        };
      });
      const fresh = picked.filter((s) => !visitorsDone.has(s.index));
      const t0 = performance.now();
      const report = await enrichment.importVisitors(
        lineStream(fresh, (s) =>
          JSON.stringify({ visitorId: s.visitorId, email: s.email, page_views: 1 + (s.index % 17), last_seen_at: '2026-11-20T10:00:00.000Z' }),
        ),
        account.id,
        { db: dbs.enrichment, defaultPhoneRegion: 'US', batchSize: 1000 },
      );
      if (report.imported !== fresh.length)
        throw new Error(`visitors: ${report.imported} of ${fresh.length} imported (first error: ${JSON.stringify(report.errors[0])})`);
      fresh.forEach((s) => visitorsDone.add(s.index));
      const before = result.visitorImport ?? { imported: 0, sec: 0 };
      const sec = before.sec + (performance.now() - t0) / 1000;
      result.visitorImport = { imported: before.imported + report.imported, sec, perSec: Math.round((before.imported + report.imported) / sec) };
      return picked;
    };
    const checkpoint = async (size) => {
      await sql.query('ANALYZE persons, identities, visitors');
      const sizes = await tableSizes(sql, SIZED_TABLES);
      const picked = shuffled(await sampleOf(size, Math.min(opts.sample, size)), opts.seed + size);
      progress(`at ${size} persons: probing lookups at ${opts['probe-rate']}/s for ${opts['probe-duration']} s each`);
      const next = cycler(picked);
      await refreshPgPids();
      const probe = await probeLatency({
        gatewayUrl,
        apiKey: apiKey.secret,
        pick: next,
        ratePerSec: opts['probe-rate'],
        durationSec: opts['probe-duration'],
        startMeter: () => startCpuMeter(processes({ gateway: children.gateway.pid, enrichment: children.enrichment.pid })),
      });
      checkpoints.push({ persons: size, sizes, probe });
      progress(
        `at ${size} persons: enrichment p50/p99 ${round(probe.enrich.latencyMs.p50)}/${round(probe.enrich.latencyMs.p99)} ms, details ${round(probe.details.latencyMs.p50)}/${round(probe.details.latencyMs.p99)} ms; ` +
          `persons ${mib(sizes.persons.heap + sizes.persons.toast)} + indexes ${mib(sizes.persons.indexes)}, identities ${mib(sizes.identities.total)}`,
      );
    };

    await dbs.enrichment.$queryRaw`SELECT 1`;
    const present = opts.reimport || growth ? { ok: false, count: null } : await holdsDataset(sql, enrichment, opts);
    if (present.ok) {
      const sliceSeed = (opts.seed + 1) >>> 0;
      progress(
        `dataset present (${opts.persons} persons of seed ${opts.seed}): import skipped; measuring the import on ${opts['slice-persons']} persons of seed ${sliceSeed}`,
      );
      const { ids, summary } = await measuredImport({ seed: sliceSeed, from: 0, count: opts['slice-persons'], what: 'slice' });
      imports.push({
        ...summary,
        kind: `slice: ${opts['slice-persons']} fresh persons of seed ${sliceSeed} into the ${opts.persons}-person table (deleted afterwards)`,
      });
      // Keeps the table at exactly the dataset; identities go with their persons (ON DELETE CASCADE).
      const { rowCount } = await sql.query('DELETE FROM persons WHERE id = ANY($1::text[])', [ids]);
      if (rowCount !== ids.length) problems.push(`slice: deleted ${rowCount} of ${ids.length} imported persons`);
    } else {
      progress(
        `importing the dataset: ${opts.persons} persons of seed ${opts.seed}${present.count === null ? (growth ? ' (growth: rebuilt)' : ' (--reimport)') : ` (the table held ${present.count} rows that are not it; truncating)`}`,
      );
      // A dedicated database: whatever else is there is from earlier runs.
      await sql.query('TRUNCATE persons CASCADE');
      await sql.query('TRUNCATE usage_ledger');
      const steps = growth
        ? [
            [0, growthAt],
            [growthAt, opts.persons],
          ]
        : [[0, opts.persons]];
      for (const [from, to] of steps) {
        const { summary } = await measuredImport({ seed: opts.seed, from, count: to - from, what: `persons ${from}–${to}` });
        imports.push({ ...summary, kind: `dataset: persons ${from}–${to} of seed ${opts.seed} into a table of ${from}` });
        if (growth) await checkpoint(to);
      }
      await sql.query('ANALYZE persons, identities');
    }
    result.import = imports;
    result.growth = checkpoints;
    const sample = await sampleOf(opts.persons, opts.sample);
    const order = shuffled(sample, opts.seed);

    // 3. A lookup of each kind must find its person before any load counts.
    const auth = { authorization: `Bearer ${apiKey.secret}` };
    const json = { ...auth, 'content-type': 'application/json' };
    const probe = sample[0];
    const details = await fetch(`${gatewayUrl}/visitors/${probe.visitorId}/details`, { headers: auth });
    const detailsBody = /** @type {any} */ (await details.json());
    if (details.status !== 200 || detailsBody.email !== probe.email)
      throw new Error(`details of ${probe.visitorId}: ${details.status} ${JSON.stringify(detailsBody)}`);
    for (const body of [{ email: probe.email }, { phone: probe.phone }]) {
      const res = await fetch(`${gatewayUrl}/visitors/enrichment`, { method: 'POST', headers: json, body: JSON.stringify(body) });
      const record = /** @type {any} */ (await res.json());
      if (res.status !== 200 || record.profile?.id !== probe.id)
        throw new Error(`enrichment ${JSON.stringify(body)}: ${res.status} ${JSON.stringify(record).slice(0, 300)}`);
    }
    // Concurrent lookups open the services' database pools, so every backend is there when CPU meters start.
    await Promise.all(
      order
        .slice(0, 64)
        .map((s) =>
          fetch(`${gatewayUrl}/visitors/enrichment`, { method: 'POST', headers: json, body: JSON.stringify({ email: s.email }) }).then((r) => r.arrayBuffer()),
        ),
    );

    suite.printHeader(out, 'Glimpse lookups benchmark', machine, result.params);
    for (const imp of imports) {
      const raw = imp.rawCopy;
      out(`import   ${imp.personsPerSec} persons/s through importPersons (COPY) — ${imp.kind}`);
      out(
        `         raw COPY of the same rows ${raw.personsPerSec} persons/s (${(raw.bytes / 1024 / 1024).toFixed(0)} MiB of COPY text into empty tables like persons and identities): import / raw COPY ${imp.overRawCopy}`,
      );
      out(
        `         ${imp.imported} persons (${imp.fileMiB} MiB of NDJSON) in ${imp.wallSec} s; importer ${imp.importerCpuMsPerPerson} ms CPU per person; ` +
          `% of one core: ${Object.entries(imp.cpu.coresPct)
            .map(([k, v]) => `${k} ${v}`)
            .join(', ')}`,
      );
    }
    out(`visitors ${result.visitorImport.imported} imported for the sample (${result.visitorImport.perSec}/s)`);
    if (checkpoints.length > 0) {
      out();
      out(`Growth: lookups at ${opts['probe-rate']}/s for ${opts['probe-duration']} s each (open loop, persons drawn across the table), and table sizes`);
      const cols = checkpoints.map((c) => String(c.persons).padStart(22));
      out(`${''.padEnd(34)}${cols.join('')}`);
      const row = (label, f) => out(`${label.padEnd(34)}${checkpoints.map((c) => String(f(c)).padStart(22)).join('')}`);
      row('enrichment p50 / p99 ms', (c) => `${round(c.probe.enrich.latencyMs.p50)} / ${round(c.probe.enrich.latencyMs.p99)}`);
      row('details p50 / p99 ms', (c) => `${round(c.probe.details.latencyMs.p50)} / ${round(c.probe.details.latencyMs.p99)}`);
      row('enrichment CPU ms (gw/enr/pg)', (c) => Object.values(c.probe.enrich.cpuMsPerRequest).join(' / '));
      row('answered 200', (c) => `${c.probe.enrich.ok + c.probe.details.ok}/${c.probe.enrich.sent + c.probe.details.sent}`);
      for (const table of SIZED_TABLES) {
        row(`${table} heap + TOAST`, (c) => (c.sizes[table] ? mib(c.sizes[table].heap + c.sizes[table].toast) : '-'));
        row(`${table} indexes`, (c) => (c.sizes[table] ? mib(c.sizes[table].indexes) : '-'));
      }
      for (const c of checkpoints) {
        for (const kind of ['enrich', 'details']) {
          if (c.probe[kind].ok !== c.probe[kind].sent)
            problems.push(`growth probe ${kind} at ${c.persons}: ${c.probe[kind].sent - c.probe[kind].ok} of ${c.probe[kind].sent} not answered 200`);
        }
      }
    }
    out();

    // 4. HTTP load.
    await refreshPgPids();
    const startMeter = () =>
      startCpuMeter(processes({ loadgen: process.pid, gateway: children.gateway.pid, enrichment: children.enrichment.pid, bare: children.bare.pid }));
    const common = { connections: opts.connections, durationSec: opts.duration, warmupSec: opts.warmup, startMeter };
    const phaseCount = opts.phone ? 6 : 5;
    let phase = 0;
    const announce = (what) => progress(`phase ${(phase += 1)}/${phaseCount}: ${what}`);
    const runs = {};
    const saturation = `${opts.warmup} s warm-up + ${opts.duration} s, ${opts.connections} connections`;

    announce(`bare GET /bare (${saturation})`);
    runs.bare = await loadRun({ ...common, url: `${bareUrl}/bare`, nextRequest: () => ({}) });
    announce(`details GET /visitors/:id/details (${saturation})`);
    const nextDetails = cycler(order);
    runs.details = await loadRun({
      ...common,
      url: `${gatewayUrl}/visitors/x/details`,
      headers: auth,
      nextRequest: () => ({ path: `/visitors/${nextDetails().visitorId}/details` }),
    });
    announce(`enrichment by email POST /visitors/enrichment (${saturation})`);
    const nextEmail = cycler(order);
    runs.enrichEmail = await loadRun({
      ...common,
      url: `${gatewayUrl}/visitors/enrichment`,
      method: 'POST',
      headers: json,
      nextRequest: () => ({ body: JSON.stringify({ email: nextEmail().email }) }),
    });
    if (opts.phone) {
      announce(`enrichment by phone POST /visitors/enrichment (${saturation})`);
      const nextPhone = cycler(order);
      runs.enrichPhone = await loadRun({
        ...common,
        url: `${gatewayUrl}/visitors/enrichment`,
        method: 'POST',
        headers: json,
        nextRequest: () => ({ body: JSON.stringify({ phone: nextPhone().phone }) }),
      });
    }

    const [rate] = opts.pacedRates;
    announce(
      `enrichment by email at ${opts.pacedRates.join(', ')} req/s, ${opts['paced-duration']} s each (evenly spaced), then ${rate}/s through autocannon overallRate`,
    );
    const pacedEmail = cycler(shuffled(sample, opts.seed + 7));
    runs.paced = [];
    for (const ratePerSec of opts.pacedRates) {
      const sent = await openLoop({
        url: `${gatewayUrl}/visitors/enrichment`,
        headers: json,
        count: ratePerSec * opts['paced-duration'],
        ratePerSec,
        nextBody: () => ({ body: JSON.stringify({ email: pacedEmail().email }), meta: null }),
      });
      const ok = sent.filter((x) => x.status === 200);
      const spanSec = (Math.max(...sent.map((x) => x.doneAt)) - Math.min(...sent.map((x) => x.sentAt))) / 1000;
      runs.paced.push({
        ratePerSec,
        sent: sent.length,
        ok: ok.length,
        // Requests over the time from the first send to the last answer: below the rate when answers fell behind.
        achievedPerSec: Math.round(sent.length / spanSec),
        non2xx: sent.filter((x) => x.status !== 200 && x.status !== 0).length,
        errors: sent.filter((x) => x.status === 0).length,
        ...(sent.some((x) => x.status === 0) ? { firstError: sent.find((x) => x.status === 0).error } : {}),
        latencyMs: summarize(sent.map((x) => x.latencyMs)),
      });
    }
    const rateConnections = Math.min(opts.connections, 10);
    runs.pacedAutocannon = await loadRun({
      url: `${gatewayUrl}/visitors/enrichment`,
      method: 'POST',
      headers: json,
      connections: rateConnections,
      durationSec: opts['paced-duration'],
      overallRate: rate,
      nextRequest: () => ({ body: JSON.stringify({ email: pacedEmail().email }) }),
      startMeter,
    });
    runs.pacedAutocannon.measured.connections = rateConnections;

    // 5. Prisma vs raw pg on the same statements, in this process; the services are idle meanwhile.
    await refreshPgPids();
    const dbCommon = {
      concurrency: opts['db-concurrency'],
      durationSec: opts['db-duration'],
      maxOps: opts['db-queries'],
      warmupOps: 2000,
    };
    const prisma = require('../shared/db/dist/enrichment.js').createDb({ databaseUrl, poolSize: opts['db-pool'] });
    cleanups.push(() => prisma.$disconnect());
    const pool = new pg.Pool({ connectionString: databaseUrl, max: opts['db-pool'] });
    cleanups.push(() => pool.end());
    // Each client's connections are opened (and their backends metered) before its measured run.
    const dbRun = async (query) => {
      await Promise.all(Array.from({ length: opts['db-pool'] * 2 }, () => query()));
      await refreshPgPids();
      return queryRun({ ...dbCommon, query, startMeter: () => startCpuMeter(processes({ loadgen: process.pid })) });
    };
    const dbRuns = {};
    const byId = () =>
      cycler(
        shuffled(
          sample.map((s) => s.id),
          opts.seed + 11,
        ),
      );
    const byEmail = () =>
      cycler(
        shuffled(
          sample.map((s) => s.email),
          opts.seed + 13,
        ),
      );
    const today = () => new Date().toISOString().slice(0, 10);
    announce(
      `db: person by id, and the enrichment's statement, Prisma and raw pg (${opts['db-concurrency']} in flight, pool ${opts['db-pool']}, ${opts['db-duration']} s or ${opts['db-queries']} queries each)`,
    );
    let next = byId();
    dbRuns.prismaById = await dbRun(() => prisma.person.findUnique({ where: { id: next() }, select: { id: true, record: true } }));
    next = byId();
    dbRuns.pgById = await dbRun(async () => (await pool.query('SELECT id, record FROM persons WHERE id = $1', [next()])).rows[0]);
    // The statement findRecord (services/enrichment/src/data/person-repository.ts) sends for a billed
    // lookup by one key, the very text, through Prisma as the service sends it and through pg; both bill the bench account
    // (no billing period and person key: the db phase measures the statement, not the month's mark).
    const ENRICH_SQL = enrichment.LOOKUP_STATEMENTS.BY_KEY_BILLED;
    next = byEmail();
    dbRuns.prismaEnrich = await dbRun(async () => (await prisma.$queryRawUnsafe(ENRICH_SQL, 'email', next(), account.id, today(), null, null, null))[0]);
    next = byEmail();
    dbRuns.pgEnrich = await dbRun(async () => (await pool.query(ENRICH_SQL, ['email', next(), account.id, today(), null, null, null])).rows[0]);

    // Report.
    const bareRps = runs.bare.measured.reqPerSec;
    const ratios = {};
    const line = (label, m) => suite.saturationLine(label, m, 13);
    out(`Saturation (${saturation})`);
    const labels = { bare: 'bare', details: 'details', enrichEmail: 'enrich email', enrichPhone: 'enrich phone' };
    for (const [key, label] of Object.entries(labels)) if (runs[key]) out(line(label, runs[key].measured));
    for (const key of ['details', 'enrichEmail', 'enrichPhone']) {
      if (!runs[key]) continue;
      ratios[key] = round(runs[key].measured.reqPerSec / bareRps, 3);
      out(`ratio    ${labels[key].padEnd(13)} / bare throughput ${ratios[key]}`);
    }
    for (const key of Object.keys(labels)) {
      const r = runs[key];
      if (!r) continue;
      const c = r.measured.cpu;
      const perReq = (name) => suite.cpuMsPerRequest(r.measured, name);
      c.cpuMsPerRequest =
        key === 'bare' ? { bare: perReq('bare') } : { gateway: perReq('gateway'), enrichment: perReq('enrichment'), postgres: perReq('postgres') };
      if (key !== 'bare') c.cpuMsPerRequest.total = round(c.cpuMsPerRequest.gateway + c.cpuMsPerRequest.enrichment + c.cpuMsPerRequest.postgres, 3);
      out(
        `cpu      ${labels[key].padEnd(13)} ms CPU/request ${Object.entries(c.cpuMsPerRequest)
          .map(([k, v]) => `${k} ${v}`)
          .join(', ')}; machine ${c.machineBusyPct} % busy; ` +
          `% of one core: ${Object.entries(c.coresPct)
            .map(([k, v]) => `${k} ${v}`)
            .join(', ')}`,
      );
    }
    suite.flagFailedRuns(
      [...Object.keys(labels), 'pacedAutocannon'].filter((key) => runs[key]).map((key) => [key, runs[key]]),
      problems,
      out,
    );
    out();
    out(`Fixed rate: enrichment by email, ${opts['paced-duration']} s per rate (evenly spaced arrivals, open loop; the first is the target's figure)`);
    for (const p of runs.paced) {
      const behind = p.achievedPerSec < p.ratePerSec * 0.95 ? '   FELL BEHIND: answers came slower than requests, so latency is queueing' : '';
      out(
        `paced ${String(p.ratePerSec).padStart(4)}/s ${String(p.achievedPerSec).padStart(4)} req/s achieved   p50 ${round(p.latencyMs.p50)} ms   p90 ${round(p.latencyMs.p90)} ms   p99 ${round(p.latencyMs.p99)} ms   max ${round(p.latencyMs.max)} ms   ` +
          `(${p.ok}/${p.sent} answered 200, errors ${p.errors}, non-2xx ${p.non2xx})${behind}`,
      );
      if (p.ok !== p.sent) problems.push(`paced ${p.ratePerSec}/s: ${p.sent - p.ok} of ${p.sent} not answered 200${p.firstError ? ` (${p.firstError})` : ''}`);
    }
    const pa = runs.pacedAutocannon.measured;
    out(
      `autocannon ${rate}/s ${pa.reqPerSec} req/s   p50 ${pa.latencyMs.p50} ms   p99 ${pa.latencyMs.p99} ms   max ${pa.latencyMs.max} ms   (overallRate ${rate}, ${rateConnections} connections: ` +
        `each sends its share back to back at the start of every second, so this p99 is of bursts; for reference)`,
    );
    out();
    const dbLine = (label, r) =>
      `${label.padEnd(25)} ${String(r.opsPerSec).padStart(6)} ops/s   p50 ${r.latencyMs.p50} ms   p99 ${r.latencyMs.p99} ms   max ${r.latencyMs.max} ms   ` +
      `${r.clientCpuMsPerOp} ms client CPU/op   postgres ${round((((r.cpu.coresPct.postgres ?? 0) / 100) * r.cpu.wallSec * 1000) / r.ops, 3)} ms CPU/op   ` +
      `(${r.ops} queries, ${r.failed} failed, ${r.misses} misses; machine ${r.cpu.machineBusyPct} % busy)`;
    out(`Prisma vs raw pg, in-process (${opts['db-concurrency']} in flight, pool ${opts['db-pool']} each; random sampled rows)`);
    out(dbLine('person by id  Prisma', dbRuns.prismaById));
    out(dbLine('person by id  pg', dbRuns.pgById));
    out(dbLine('enrichment stmt Prisma', dbRuns.prismaEnrich));
    out(dbLine('enrichment stmt pg', dbRuns.pgEnrich));
    const overhead = (prismaRun, pgRun) => ({
      throughputPgOverPrisma: round(pgRun.opsPerSec / prismaRun.opsPerSec, 2),
      p50PrismaOverPg: round(prismaRun.latencyMs.p50 / pgRun.latencyMs.p50, 2),
      p99PrismaOverPg: round(prismaRun.latencyMs.p99 / pgRun.latencyMs.p99, 2),
      clientCpuPrismaOverPg: round(prismaRun.clientCpuMsPerOp / pgRun.clientCpuMsPerOp, 2),
      extraClientCpuMsPerOp: round(prismaRun.clientCpuMsPerOp - pgRun.clientCpuMsPerOp, 3),
    });
    const prismaOverhead = {
      byId: overhead(dbRuns.prismaById, dbRuns.pgById),
      enrichment: overhead(dbRuns.prismaEnrich, dbRuns.pgEnrich),
    };
    for (const [k, o] of Object.entries(prismaOverhead)) {
      out(
        `overhead ${k.padEnd(13)} raw pg does ${o.throughputPgOverPrisma}x Prisma's ops/s; Prisma's p50 ${o.p50PrismaOverPg}x, p99 ${o.p99PrismaOverPg}x pg's; ` +
          `Prisma uses ${o.clientCpuPrismaOverPg}x the client CPU per query (+${o.extraClientCpuMsPerOp} ms)`,
      );
    }
    for (const [k, r] of Object.entries(dbRuns)) {
      if (r.failed || r.misses) problems.push(`db ${k}: ${r.failed} failed, ${r.misses} misses${r.firstError ? ` (first: ${r.firstError})` : ''}`);
    }
    Object.assign(result, { runs, ratios, db: dbRuns, prismaOverhead });
  });

  if (opts.profile && result.runs) {
    const window = result.runs.enrichEmail.measured.window;
    const label = 'the measured enrich-email run';
    suite.reportProfiles({ dir: profileDir, services: { gateway: [window, label], enrichment: [window, label] }, result, problems, out });
  }

  const runs = result.runs;
  const measuredImport = result.import && result.import[0];
  const cpu = runs && runs.enrichEmail.measured.cpu.cpuMsPerRequest;
  const targets = runs
    ? {
        cpuPerEnrichment: { target: `<= ${TARGETS.maxCpuMsPerEnrichment} ms`, actual: cpu.total, met: cpu.total <= TARGETS.maxCpuMsPerEnrichment },
        p99AtRate: {
          target: `< ${TARGETS.maxP99Ms} ms at ${TARGETS.atRatePerSec} req/s`,
          actual: round(runs.paced[0].latencyMs.p99),
          atRatePerSec: runs.paced[0].ratePerSec,
          met: runs.paced[0].ratePerSec >= TARGETS.atRatePerSec && runs.paced[0].latencyMs.p99 < TARGETS.maxP99Ms,
        },
        prismaOverPg: {
          target: `<= ${TARGETS.maxPrismaOverPg}x`,
          actual: result.prismaOverhead.enrichment.throughputPgOverPrisma,
          met: result.prismaOverhead.enrichment.throughputPgOverPrisma <= TARGETS.maxPrismaOverPg,
        },
        importRate: {
          target: `>= ${TARGETS.minImportPerSec}/s`,
          actual: measuredImport.personsPerSec,
          met: measuredImport.personsPerSec >= TARGETS.minImportPerSec,
        },
        importOverRawCopy: {
          target: `>= ${TARGETS.minImportOverRawCopy}x`,
          actual: measuredImport.overRawCopy,
          met: measuredImport.overRawCopy >= TARGETS.minImportOverRawCopy,
        },
      }
    : null;
  suite.closeResult(result, targets, problems);

  const brief = (r) =>
    r && {
      rps: r.measured.reqPerSec,
      p50: r.measured.latencyMs.p50,
      p99: r.measured.latencyMs.p99,
      errors: r.measured.errors + r.measured.timeouts,
      non2xx: r.measured.non2xx,
      cpuMs: r.measured.cpu.cpuMsPerRequest,
    };
  const dbBrief = (r) => r && { opsPerSec: r.opsPerSec, p50: r.latencyMs.p50, p99: r.latencyMs.p99, cpuMsPerOp: r.clientCpuMsPerOp };
  // The summary's own fields, between the common head (suite, date, machine, load) and tail (shutdown, valid).
  const fields = {
    params: result.params && {
      persons: result.params.persons,
      seed: result.params.seed,
      sample: result.params.sample,
      connections: result.params.connections,
      durationSec: result.params.durationSec,
    },
    import:
      result.import &&
      result.import.map((i) => ({
        kind: i.kind.split(':')[0],
        persons: i.imported,
        personsPerSec: i.personsPerSec,
        rawCopyPerSec: i.rawCopy.personsPerSec,
        overRawCopy: i.overRawCopy,
      })),
    growth:
      result.growth &&
      result.growth.map((c) => ({
        persons: c.persons,
        enrichP50: round(c.probe.enrich.latencyMs.p50),
        enrichP99: round(c.probe.enrich.latencyMs.p99),
        detailsP50: round(c.probe.details.latencyMs.p50),
        detailsP99: round(c.probe.details.latencyMs.p99),
        personsMiB: c.sizes.persons && Math.round((c.sizes.persons.heap + c.sizes.persons.toast) / 1048576),
        personsIndexesMiB: c.sizes.persons && Math.round(c.sizes.persons.indexes / 1048576),
        identitiesMiB: c.sizes.identities && Math.round(c.sizes.identities.total / 1048576),
      })),
    bare: runs && brief(runs.bare),
    details: runs && brief(runs.details),
    enrichEmail: runs && brief(runs.enrichEmail),
    enrichPhone: runs && brief(runs.enrichPhone),
    ratios: result.ratios,
    paced:
      runs &&
      runs.paced.map((p) => ({
        rate: p.ratePerSec,
        achieved: p.achievedPerSec,
        p50: round(p.latencyMs.p50),
        p99: round(p.latencyMs.p99),
        ok: p.ok,
        sent: p.sent,
      })),
    db: result.db && Object.fromEntries(Object.entries(result.db).map(([k, r]) => [k, dbBrief(r)])),
    prismaOverhead:
      result.prismaOverhead &&
      Object.fromEntries(
        Object.entries(result.prismaOverhead).map(([k, o]) => [
          k,
          { throughput: o.throughputPgOverPrisma, p50: o.p50PrismaOverPg, cpu: o.clientCpuPrismaOverPg },
        ]),
      ),
    targetsMet: targets && Object.fromEntries(Object.entries(targets).map(([k, t]) => [k, t.met])),
  };
  const verdict = (name, t) => `${name} ${t.actual} ${t.met ? 'MET' : 'MISSED'} (${t.target})`;
  suite.writeAndPrintSummary({
    result,
    fields,
    startedAt,
    problems,
    out,
    targetsLine:
      targets &&
      `targets  ${[
        verdict('CPU per enrichment ms', targets.cpuPerEnrichment),
        verdict(`enrichment p99 at ${targets.p99AtRate.atRatePerSec}/s ms`, targets.p99AtRate),
        verdict('raw pg / Prisma ops', targets.prismaOverPg),
        verdict('import persons/s', targets.importRate),
        verdict('import / raw COPY', targets.importOverRawCopy),
      ].join('; ')}`,
  });

  if (problems.length) return 1;
  if (opts.checkTargets && targets && !Object.values(targets).every((t) => t.met)) return 1;
  return 0;
}

module.exports = { description, help, run };
