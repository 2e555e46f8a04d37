// The lookups benchmark: the details and enrichment lookups through the real gateway and
// enrichment service over an imported demo dataset, against a bare express endpoint on the same
// machine; the p99 of enrichment at a fixed rate; Prisma against raw pg for the same reads; and
// the import's throughput. Runs the built services (dist/).
'use strict';
const crypto = require('node:crypto');
const path = require('node:path');
const { summarize, round } = require('./lib/stats.js');
const { openLoop } = require('./lib/open-loop.js');
const { loadRun } = require('./lib/request-load.js');
const { queryRun } = require('./lib/query-load.js');
const { timedPersonImport } = require('./lib/timed-import.js');
const { RESULTS_DIR } = require('./lib/results.js');
const { startCpuMeter, infraPids } = require('./lib/cpu-usage.js');
const suite = require('./lib/suite.js');

const description = 'details/enrichment lookups vs a bare endpoint (req/s, p50/p99), p99 at 500 req/s, Prisma vs pg, import persons/s';

const BENCH_DB = suite.benchDatabaseName('lookups');
const TARGETS = { minThroughputRatio: 0.4, maxP99Ms: 20, atRatePerSec: 500 };
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
};

const help = `Usage: npm run bench:lookups [-- options]
       node scripts/bench.js lookups [options]

${description}.
One run: infra up, build (turbo: gateway, enrichment and their dependencies), the ${BENCH_DB} database
(created and migrated if needed) holding --persons demo persons of --seed. The import is skipped when
the database already holds exactly that dataset (row count, and sampled records equal to what the seed
generates); its throughput is then measured on a fresh --slice-persons slice of another seed, deleted
afterwards. Then a new account with visitors for --sample of the persons and an API key with
${SCOPES.join(' and ')}, and as child processes on 127.0.0.1 the gateway, the enrichment service and a
bare express 5 GET /bare. Phases (every lookup asks for another sampled person):
  1. bare           autocannon GET /bare                         (warm-up, then --duration s, --connections)
  2. details        autocannon GET /visitors/:id/details         (same)
  3. enrich-email   autocannon POST /visitors/enrichment {email} (same)
  4. enrich-phone   autocannon POST /visitors/enrichment {phone} (same; phones in assorted US formats)
  5. paced          enrichment {email} at each of --paced-rates for --paced-duration s, evenly spaced, open
                    loop (the first rate is the p99 target's figure; the lower ones show where the latency
                    holds), then the first rate through autocannon's overallRate for reference
  6. db             in-process, --db-concurrency queries in flight on --db-pool connections, --db-duration s or
                    --db-queries each: person by id (Prisma findUnique, raw pg), and identity → person (Prisma
                    relation select, Prisma $queryRaw join as the enrichment service asks, raw pg join)
Then SIGTERM to the children (each must exit 0). Targets: enrichment ≥ ${TARGETS.minThroughputRatio * 100} % of bare req/s;
enrichment p99 < ${TARGETS.maxP99Ms} ms at ${TARGETS.atRatePerSec} req/s.
Prints a report and a one-line JSON summary; writes it to bench/results/lookups-<timestamp>.json.

Options:
  --persons <n>         persons in the dataset (default 100000)
  --seed <n>            demo seed of the dataset (default 42)
  --sample <n>          persons given a visitor and used for lookups (default 20000)
  --slice-persons <n>   size of the import-throughput slice when the dataset import is skipped (default 10000)
  --reimport            import the dataset again even when it is there (truncates persons first)
  --duration <s>        measured seconds per saturation run (default 10)
  --warmup <s>          warm-up seconds before each saturation run, discarded (default 2)
  --connections <n>     autocannon connections (default 50)
  --paced-rates <list>  requests per second of the paced runs, comma-separated, the target's first (default ${DEFAULT_PACED_RATES})
  --paced-duration <s>  seconds of the paced phase (default 10)
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
  const opts = {
    reimport: values.reimport,
    phone: !values['no-phone'],
    profile: values.profile,
    build: !values['skip-build'],
    checkTargets: values['check-targets'],
    ...numbers,
  };
  opts.sample = Math.min(opts.sample, opts.persons);
  opts.pacedRates = values['paced-rates'].split(',').map((r) => r.trim()).filter(Boolean).map(Number);
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
  const count = Number((await sql.query('SELECT count(*) AS n FROM persons')).rows[0].n);
  if (count !== persons) return { ok: false, count };
  const indexes = new Set([0, persons - 1]);
  const random = seededRandom(seed ^ 0x51ed);
  while (indexes.size < Math.min(PROBES, persons)) indexes.add(Math.floor(random() * persons));
  const records = [...indexes].map((i) => enrichment.generatePerson(i, seed));
  // jsonb equality ignores key order and whitespace: the stored record is the generated one.
  const { rows } = await sql.query(
    'SELECT count(*) AS n FROM persons p JOIN unnest($1::text[], $2::jsonb[]) AS t(id, record) ON p.id = t.id AND p.record = t.record',
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
    const { databaseUrl, db, sql, createDb, pg } = await suite.setUpInfraAndDatabase({
      env, name: BENCH_DB, poolSize: 4, buildFilters: BUILD_FILTERS, doBuild: opts.build, progress, cleanups,
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

    // 1. The dataset, and the import's throughput.
    const showImport = (what) => {
      let last = 0;
      const t0 = Date.now();
      return (r) => {
        if (Date.now() - last < 5000) return;
        last = Date.now();
        progress(`${what}: ${r.imported} imported (${Math.round((r.imported / (Date.now() - t0)) * 1000)}/s)`);
      };
    };
    // The meter follows the processes alive when it starts: the import's connection must be open by then.
    await db.$queryRaw`SELECT 1`;
    const importMeter = () => startCpuMeter({ importer: process.pid, ...infraPids() });
    const present = opts.reimport ? { ok: false, count: null } : await holdsDataset(sql, enrichment, opts);
    let importRun;
    if (present.ok) {
      const sliceSeed = (opts.seed + 1) >>> 0;
      progress(`dataset present (${opts.persons} persons of seed ${opts.seed}): import skipped; measuring the import on ${opts['slice-persons']} persons of seed ${sliceSeed}`);
      importRun = await timedPersonImport({ enrichment, db, seed: sliceSeed, count: opts['slice-persons'], onProgress: showImport('slice'), startMeter: importMeter });
      importRun.kind = `slice: ${opts['slice-persons']} fresh persons of seed ${sliceSeed} into the ${opts.persons}-person table (deleted afterwards)`;
      // Keeps the table at exactly the dataset; identities go with their persons (ON DELETE CASCADE).
      const { rowCount } = await sql.query('DELETE FROM persons WHERE id = ANY($1::text[])', [importRun.ids]);
      if (rowCount !== importRun.ids.length) problems.push(`slice: deleted ${rowCount} of ${importRun.ids.length} imported persons`);
    } else {
      progress(`importing the dataset: ${opts.persons} persons of seed ${opts.seed}${present.count === null ? ' (--reimport)' : ` (the table held ${present.count} rows that are not it; truncating)`}`);
      // A dedicated database: whatever else is there is from earlier runs.
      await sql.query('TRUNCATE persons CASCADE');
      importRun = await timedPersonImport({ enrichment, db, seed: opts.seed, count: opts.persons, onProgress: showImport('persons'), startMeter: importMeter });
      importRun.kind = `dataset: ${opts.persons} persons of seed ${opts.seed} into an empty table`;
      await sql.query('ANALYZE persons, identities');
    }
    if (importRun.report.skipped) problems.push(`import: ${importRun.report.skipped} records skipped (first: ${JSON.stringify(importRun.report.errors[0])})`);
    const { ids: _ids, report: importReport, ...importSummary } = importRun;
    result.import = { ...importSummary, imported: importReport.imported, skipped: importReport.skipped };

    // 2. An account, its visitors (a sample of the persons) and an API key.
    const account = await createAccount(db, `bench lookups ${startedAt.toISOString()}`);
    // The account goes at the end with its visitors, key and usage (ON DELETE CASCADE), so runs do not pile up.
    cleanups.push(() => sql.query('DELETE FROM accounts WHERE id = $1', [account.id]));
    const apiKey = await createApiKey(db, account.id, SCOPES);
    const stride = opts.persons / opts.sample;
    const sample = Array.from({ length: opts.sample }, (_, k) => {
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
    const visitorsT0 = performance.now();
    const visitorReport = await enrichment.importVisitors(
      lineStream(sample, (s) => JSON.stringify({ visitorId: s.visitorId, email: s.email, page_views: 1 + (s.index % 17), last_seen_at: '2026-11-20T10:00:00.000Z' })),
      account.id,
      { db, defaultPhoneRegion: 'US', batchSize: 1000 },
    );
    const visitorsSec = (performance.now() - visitorsT0) / 1000;
    result.visitorImport = { imported: visitorReport.imported, skipped: visitorReport.skipped, perSec: Math.round(visitorReport.imported / visitorsSec) };
    if (visitorReport.imported !== sample.length) throw new Error(`visitors: ${visitorReport.imported} of ${sample.length} imported (first error: ${JSON.stringify(visitorReport.errors[0])})`);
    const order = shuffled(sample, opts.seed);

    // 3. The services.
    const [gatewayPort, enrichmentPort, barePort] = await suite.freePorts(3);
    const serviceEnv = suite.serviceEnvBase(databaseUrl);
    const prof = (name) => suite.cpuProfArgs(opts.profile, path.join(profileDir, name));
    progress('starting gateway, enrichment service and bare endpoint');
    const gatewayUrl = suite.urlOf(gatewayPort);
    const bareUrl = suite.urlOf(barePort);
    const enrichmentUrl = suite.urlOf(enrichmentPort);
    await suite.startServices(children, [
      { name: 'enrichment', script: 'services/enrichment/dist/main.js', env: { ...serviceEnv, ENRICHMENT_PORT: String(enrichmentPort) }, nodeArgs: prof('enrichment'), readyUrl: `${enrichmentUrl}/readyz` },
      {
        name: 'gateway',
        script: 'services/gateway/dist/main.js',
        // The bench measures throughput with one API key: its rate limit must not be what it measures.
        env: { ...serviceEnv, PORT: String(gatewayPort), ...suite.infraEnv(env), ENRICHMENT_URL: enrichmentUrl, LOOKUPS_RATE_LIMIT_PER_SECOND: String(1_000_000_000) },
        nodeArgs: prof('gateway'),
        readyUrl: `${gatewayUrl}/readyz`,
      },
      suite.bareSpec(barePort),
    ]);

    // A lookup of each kind must find its person before any load counts.
    const auth = { authorization: `Bearer ${apiKey.secret}` };
    const json = { ...auth, 'content-type': 'application/json' };
    const probe = sample[0];
    const details = await fetch(`${gatewayUrl}/visitors/${probe.visitorId}/details`, { headers: auth });
    const detailsBody = await details.json();
    if (details.status !== 200 || detailsBody.email !== probe.email) throw new Error(`details of ${probe.visitorId}: ${details.status} ${JSON.stringify(detailsBody)}`);
    for (const body of [{ email: probe.email }, { phone: probe.phone }]) {
      const res = await fetch(`${gatewayUrl}/visitors/enrichment`, { method: 'POST', headers: json, body: JSON.stringify(body) });
      const record = await res.json();
      if (res.status !== 200 || record.profile?.id !== probe.id) throw new Error(`enrichment ${JSON.stringify(body)}: ${res.status} ${JSON.stringify(record).slice(0, 300)}`);
    }

    suite.printHeader(out, 'Glimpse lookups benchmark', machine, result.params);
    const imp = result.import;
    out(`import   ${imp.personsPerSec} persons/s — ${imp.kind}`);
    out(`         ${imp.imported} persons in ${imp.wallSec} s, batches of ${imp.batchSize}. Importer's time: generating the demo lines ${imp.breakdownPct.generate} %, ` +
      `parse + validation + identities + driver ${imp.breakdownPct.parseValidateIdentities} %, waiting for the database ${imp.breakdownPct.waitingForDb} %`);
    out(`         a batch's transaction was in flight ${imp.dbTransactionsPct} % of the time (${imp.transactions} transactions, overlapping the next batch's parsing); ` +
      `% of one core: importer ${imp.cpu.coresPct.importer}, postgres ${imp.cpu.coresPct.postgres} (all sessions), other ${imp.cpu.coresPct.other}`);
    out(`         ${imp.personsPerSecExcludingGeneration} persons/s if the lines cost nothing to produce (a file import, reading aside)`);
    out(`visitors ${result.visitorImport.imported} imported for the sample (${result.visitorImport.perSec}/s)`);
    out();

    // 4. HTTP load.
    const startMeter = () =>
      startCpuMeter({
        loadgen: process.pid,
        gateway: children.gateway.pid,
        enrichment: children.enrichment.pid,
        bare: children.bare.pid,
        ...infraPids(),
      });
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
    runs.details = await loadRun({ ...common, url: `${gatewayUrl}/visitors/x/details`, headers: auth, nextRequest: () => ({ path: `/visitors/${nextDetails().visitorId}/details` }) });
    announce(`enrichment by email POST /visitors/enrichment (${saturation})`);
    const nextEmail = cycler(order);
    runs.enrichEmail = await loadRun({ ...common, url: `${gatewayUrl}/visitors/enrichment`, method: 'POST', headers: json, nextRequest: () => ({ body: JSON.stringify({ email: nextEmail().email }) }) });
    if (opts.phone) {
      announce(`enrichment by phone POST /visitors/enrichment (${saturation})`);
      const nextPhone = cycler(order);
      runs.enrichPhone = await loadRun({ ...common, url: `${gatewayUrl}/visitors/enrichment`, method: 'POST', headers: json, nextRequest: () => ({ body: JSON.stringify({ phone: nextPhone().phone }) }) });
    }

    const [rate] = opts.pacedRates;
    announce(`enrichment by email at ${opts.pacedRates.join(', ')} req/s, ${opts['paced-duration']} s each (evenly spaced), then ${rate}/s through autocannon overallRate`);
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

    // 5. Prisma vs raw pg on the same reads, in this process; the services are idle meanwhile.
    const dbCommon = {
      concurrency: opts['db-concurrency'],
      durationSec: opts['db-duration'],
      maxOps: opts['db-queries'],
      warmupOps: 2000,
      startMeter: () => startCpuMeter({ loadgen: process.pid, ...infraPids() }),
    };
    const prisma = createDb({ databaseUrl, poolSize: opts['db-pool'] });
    cleanups.push(() => prisma.$disconnect());
    const pool = new pg.Pool({ connectionString: databaseUrl, max: opts['db-pool'] });
    cleanups.push(() => pool.end());
    const dbRuns = {};
    const byId = () => cycler(shuffled(sample.map((s) => s.id), opts.seed + 11));
    const byEmail = () => cycler(shuffled(sample.map((s) => s.email), opts.seed + 13));
    announce(`db: person by id and identity → person, Prisma and raw pg (${opts['db-concurrency']} in flight, pool ${opts['db-pool']}, ${opts['db-duration']} s or ${opts['db-queries']} queries each)`);
    let next = byId();
    dbRuns.prismaById = await queryRun({ ...dbCommon, query: () => prisma.person.findUnique({ where: { id: next() }, select: { id: true, record: true } }) });
    next = byId();
    dbRuns.pgById = await queryRun({ ...dbCommon, query: async () => (await pool.query('SELECT id, record FROM persons WHERE id = $1', [next()])).rows[0] });
    // Identity → person: Prisma's relation select (two round trips), then the one join that
    // findPersonByIdentities (services/enrichment/src/data/person-repository.ts) sends through Prisma, then raw pg.
    next = byEmail();
    dbRuns.prismaByIdentity = await queryRun({
      ...dbCommon,
      query: async () => (await prisma.identity.findUnique({ where: { kind_value: { kind: 'email', value: next() } }, select: { person: { select: { id: true, record: true } } } }))?.person,
    });
    next = byEmail();
    dbRuns.prismaRawByIdentity = await queryRun({
      ...dbCommon,
      query: async () => (await prisma.$queryRaw`SELECT p.id, p.record FROM identities i JOIN persons p ON p.id = i.person_id WHERE i.kind = 'email' AND i.value = ${next()}`)[0],
    });
    next = byEmail();
    dbRuns.pgByIdentity = await queryRun({
      ...dbCommon,
      query: async () => (await pool.query('SELECT p.id, p.record FROM identities i JOIN persons p ON p.id = i.person_id WHERE i.kind = $1 AND i.value = $2', ['email', next()])).rows[0],
    });

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
      out(`ratio    ${labels[key].padEnd(13)} / bare throughput ${ratios[key]}${key.startsWith('enrich') ? ` (target ≥ ${TARGETS.minThroughputRatio})` : ''}`);
    }
    const serverOf = { bare: 'bare', details: 'gateway', enrichEmail: 'gateway', enrichPhone: 'gateway' };
    for (const key of Object.keys(labels)) {
      const r = runs[key];
      if (!r) continue;
      const c = r.measured.cpu;
      const perReq = (name) => suite.cpuMsPerRequest(r.measured, name);
      c.cpuMsPerRequest = key === 'bare' ? { bare: perReq('bare') } : { gateway: perReq('gateway'), enrichment: perReq('enrichment'), postgres: perReq('postgres') };
      out(`cpu      ${labels[key].padEnd(13)} ms CPU/request ${Object.entries(c.cpuMsPerRequest).map(([k, v]) => `${k} ${v}`).join(', ')}; machine ${c.machineBusyPct} % busy; ` +
        `% of one core: ${Object.entries(c.coresPct).map(([k, v]) => `${k} ${v}`).join(', ')}`);
    }
    suite.flagFailedRuns([...Object.keys(labels), 'pacedAutocannon'].filter((key) => runs[key]).map((key) => [key, runs[key]]), problems, out);
    out();
    out(`Fixed rate: enrichment by email, ${opts['paced-duration']} s per rate (evenly spaced arrivals, open loop; the first is the target's figure)`);
    for (const p of runs.paced) {
      const behind = p.achievedPerSec < p.ratePerSec * 0.95 ? '   FELL BEHIND: answers came slower than requests, so latency is queueing' : '';
      out(`paced ${String(p.ratePerSec).padStart(4)}/s ${String(p.achievedPerSec).padStart(4)} req/s achieved   p50 ${round(p.latencyMs.p50)} ms   p90 ${round(p.latencyMs.p90)} ms   p99 ${round(p.latencyMs.p99)} ms   max ${round(p.latencyMs.max)} ms   ` +
        `(${p.ok}/${p.sent} answered 200, errors ${p.errors}, non-2xx ${p.non2xx})${behind}`);
      if (p.ok !== p.sent) problems.push(`paced ${p.ratePerSec}/s: ${p.sent - p.ok} of ${p.sent} not answered 200${p.firstError ? ` (${p.firstError})` : ''}`);
    }
    const pa = runs.pacedAutocannon.measured;
    out(`autocannon ${rate}/s ${pa.reqPerSec} req/s   p50 ${pa.latencyMs.p50} ms   p99 ${pa.latencyMs.p99} ms   max ${pa.latencyMs.max} ms   (overallRate ${rate}, ${rateConnections} connections: ` +
      `each sends its share back to back at the start of every second, so this p99 is of bursts; for reference)`);
    out();
    const dbLine = (label, r) =>
      `${label.padEnd(25)} ${String(r.opsPerSec).padStart(6)} ops/s   p50 ${r.latencyMs.p50} ms   p99 ${r.latencyMs.p99} ms   max ${r.latencyMs.max} ms   ` +
      `${r.clientCpuMsPerOp} ms client CPU/op   postgres ${round(((r.cpu.coresPct.postgres ?? 0) / 100) * r.cpu.wallSec * 1000 / r.ops, 3)} ms CPU/op   ` +
      `(${r.ops} queries, ${r.failed} failed, ${r.misses} misses; machine ${r.cpu.machineBusyPct} % busy)`;
    out(`Prisma vs raw pg, in-process (${opts['db-concurrency']} in flight, pool ${opts['db-pool']} each; random sampled rows)`);
    out(dbLine('person by id  Prisma', dbRuns.prismaById));
    out(dbLine('person by id  pg', dbRuns.pgById));
    out(dbLine('identity→person Prisma', dbRuns.prismaByIdentity));
    out(dbLine('identity→person $queryRaw', dbRuns.prismaRawByIdentity));
    out(dbLine('identity→person pg', dbRuns.pgByIdentity));
    const overhead = (prismaRun, pgRun) => ({
      throughputPgOverPrisma: round(pgRun.opsPerSec / prismaRun.opsPerSec, 2),
      p50PrismaOverPg: round(prismaRun.latencyMs.p50 / pgRun.latencyMs.p50, 2),
      p99PrismaOverPg: round(prismaRun.latencyMs.p99 / pgRun.latencyMs.p99, 2),
      clientCpuPrismaOverPg: round(prismaRun.clientCpuMsPerOp / pgRun.clientCpuMsPerOp, 2),
      extraClientCpuMsPerOp: round(prismaRun.clientCpuMsPerOp - pgRun.clientCpuMsPerOp, 3),
    });
    const prismaOverhead = {
      byId: overhead(dbRuns.prismaById, dbRuns.pgById),
      byIdentity: overhead(dbRuns.prismaByIdentity, dbRuns.pgByIdentity),
      byIdentityRaw: overhead(dbRuns.prismaRawByIdentity, dbRuns.pgByIdentity),
    };
    for (const [k, o] of Object.entries(prismaOverhead)) {
      out(`overhead ${k.padEnd(13)} raw pg does ${o.throughputPgOverPrisma}x Prisma's ops/s; Prisma's p50 ${o.p50PrismaOverPg}x, p99 ${o.p99PrismaOverPg}x pg's; ` +
        `Prisma uses ${o.clientCpuPrismaOverPg}x the client CPU per query (+${o.extraClientCpuMsPerOp} ms)`);
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
  const targets = runs
    ? {
        throughputRatio: { target: `>= ${TARGETS.minThroughputRatio}`, actual: result.ratios.enrichEmail, met: result.ratios.enrichEmail >= TARGETS.minThroughputRatio },
        p99AtRate: {
          target: `< ${TARGETS.maxP99Ms} ms at ${TARGETS.atRatePerSec} req/s`,
          actual: round(runs.paced[0].latencyMs.p99),
          atRatePerSec: runs.paced[0].ratePerSec,
          met: runs.paced[0].ratePerSec >= TARGETS.atRatePerSec && runs.paced[0].latencyMs.p99 < TARGETS.maxP99Ms,
        },
      }
    : null;
  suite.closeResult(result, targets, problems);

  const brief = (r) => r && { rps: r.measured.reqPerSec, p50: r.measured.latencyMs.p50, p99: r.measured.latencyMs.p99, errors: r.measured.errors + r.measured.timeouts, non2xx: r.measured.non2xx };
  const dbBrief = (r) => r && { opsPerSec: r.opsPerSec, p50: r.latencyMs.p50, p99: r.latencyMs.p99, cpuMsPerOp: r.clientCpuMsPerOp };
  // The summary's own fields, between the common head (suite, date, machine, load) and tail (shutdown, valid).
  const fields = {
    params: result.params && { persons: result.params.persons, seed: result.params.seed, sample: result.params.sample, connections: result.params.connections, durationSec: result.params.durationSec },
    import: result.import && { personsPerSec: result.import.personsPerSec, persons: result.import.imported, kind: result.import.kind.split(':')[0], breakdownPct: result.import.breakdownPct },
    bare: runs && brief(runs.bare),
    details: runs && brief(runs.details),
    enrichEmail: runs && brief(runs.enrichEmail),
    enrichPhone: runs && brief(runs.enrichPhone),
    ratios: result.ratios,
    paced: runs && runs.paced.map((p) => ({ rate: p.ratePerSec, achieved: p.achievedPerSec, p50: round(p.latencyMs.p50), p99: round(p.latencyMs.p99), ok: p.ok, sent: p.sent })),
    db: result.db && Object.fromEntries(Object.entries(result.db).map(([k, r]) => [k, dbBrief(r)])),
    prismaOverhead: result.prismaOverhead && Object.fromEntries(Object.entries(result.prismaOverhead).map(([k, o]) => [k, { throughput: o.throughputPgOverPrisma, p50: o.p50PrismaOverPg, cpu: o.clientCpuPrismaOverPg }])),
    targetsMet: targets && { throughput: targets.throughputRatio.met, p99AtRate: targets.p99AtRate.met },
  };
  suite.writeAndPrintSummary({ result, fields, startedAt, problems, out,
    targetsLine: targets && (`targets  enrichment/bare throughput ${targets.throughputRatio.actual} ${targets.throughputRatio.met ? 'MET' : 'MISSED'} (${targets.throughputRatio.target}); ` +
      `enrichment p99 at ${targets.p99AtRate.atRatePerSec} req/s ${targets.p99AtRate.actual} ms ${targets.p99AtRate.met ? 'MET' : 'MISSED'} (${targets.p99AtRate.target})`),
  });

  if (problems.length) return 1;
  if (opts.checkTargets && targets && !(targets.throughputRatio.met && targets.p99AtRate.met)) return 1;
  return 0;
}

module.exports = { description, help, run };
