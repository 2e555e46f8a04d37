#!/usr/bin/env node
// npm run chaos: the production topology on one machine (a 3-broker KRaft cluster, 2 gateways,
// 3 playbook replicas, 2 enrichment replicas, 2 visitors replicas, 2 webhooks replicas, a private
// Postgres and a six-node Redis Cluster), a steady load of events, lookups and collected page views
// whose playbook effects go out as webhooks to a local receiver, faults during it, a fuzzer, then exact checks. Loopback only, bounded, and it
// stops everything it started (by recorded pid). Prints progress to stderr and a table to stdout;
// exits 1 when a check fails.
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const crypto = require('node:crypto');
const { parseArgs } = require('node:util');
const { REPO_ROOT, serviceDatabaseUrl } = require('../infra/env');
const { createKafkaCluster } = require('./kafka-cluster');
const { createRegistry, startNodeService, createPrivatePostgres, createPrivateRedisCluster, freePorts } = require('./processes');
const { createEventLoad, createLookupLoad, createCollectLoad, sendBurst } = require('./load');
const { deliveryChecks, visitorsChecks, logChecks, kafkaPurgeCheck, redisPurgeCheck, groupLag, parseMetrics, readRawCopies, readTopic } = require('./checks');
const { startHealthyReceiver, startHangingReceiver, webhooksChecks, expectedEffects } = require('./webhooks');
const { openServiceDbs } = require('../service-dbs');

const HELP = `Usage: npm run chaos -- [--short | --full] [options]

Starts, on loopback and beside anything already running: a 3-broker KRaft Kafka cluster (from the
jars of scripts/infra, replication factor 3, min.insync.replicas 2, data in .infra/chaos), a private
Postgres cluster (initdb in a temporary dir), a private Redis Cluster (six redis-server processes on
free ports, three masters with a replica each, no persistence, cluster-node-timeout 5 s as in
deploy/k8s), 2 gateways (REDIS_CLUSTER_NODES, EVENTS_RATE_LIMIT_PER_SECOND = max(100, 2 x --rate)),
3 playbook replicas, 2 enrichment replicas, 2 visitors replicas and 2 webhooks replicas (their
builds, dist/main.js; the webhooks replicas with the SSRF guard and https-only on as in production,
loopback allowed for the local receivers by WEBHOOKS_ALLOW_LOOPBACK as in the integration tests,
their own WEBHOOKS_SECRET_KEY, 8 slots each, caps 4 per account and 2 per endpoint, a 10 s
time-out, retries from 1 s to 8 s). Two HTTP receivers run on loopback in this process: the load
account's endpoint (registered with POST /account/webhooks for enrollment.started and .stopped;
it verifies each request's signature on arrival, answers 204, or 500 to the first arrival of one
id in 20) and a receiver that never answers, the two endpoints of a second account whose 40
people each start a playbook before the load (their deliveries hang and are retried all along).
The webhooks groups are new (no committed offsets): a partition without one is read from its start,
so one that moves to another replica before its first commit loses nothing.
Then a steady load of events, lookups and the tag's page views (POST /collect) runs while faults
are made, in cycles: SIGKILL of a playbook replica (3 per cycle), a 4th replica joining and
leaving, SIGKILL of each visitors replica, SIGKILL of each webhooks replica (started again 3 s
later; what it had claimed is due again when its lease ends, 25 s), SIGKILL of a gateway, SIGKILL
of a Kafka broker and its restart, Redis stopped (all six nodes SIGTERMed for 8 s, then started
again: they rejoin from nodes.conf with every key gone; the gateways must use them again by themselves), a Redis failover
(SIGKILL of the master that owns the slot of glimpse:{a:<load account>}:raw while events flow; at
once a burst of 3x EVENTS_RATE_LIMIT_PER_SECOND events, in batches of a quarter of the limit
(POST /events/batch), goes to one gateway for a second account whose keys live on the same master;
the replica's promotion is awaited, and 6 s later the killed node is started again on its port
and rejoins as a replica), Postgres stopped, Postgres hung (SIGSTOP of the postmaster and its
processes, then SIGCONT). After the load: the fuzzer over every public path, then the checks —
every event answered 200 is in Kafka and has its effects exactly once (in-order replay per person
compared with Postgres), every page view answered 200 in Kafka and every visitor's aggregates (page
views, sessions, first/last seen, last page) equal to a replay of its page views, no 5xx but 503
with Retry-After, no connection closed without an answer; the Redis failover: the replica promoted,
the burst still refused with 429 before the promotion (no more accepted than the limit allows per
second), only 200, 429 or 503 with Retry-After to it, every burst event answered 200 in Kafka, raw
copies readable again and /readyz with Redis ok by themselves, the old master back as a replica;
webhooks: every playbook effect of the load account (playbook_effects, equal to the enrollments'
starts and stops) received by its endpoint at least once with a valid Standard Webhooks signature,
a repeat only under the same webhook-id, nothing foreign, every delivery recorded delivered, none
dead-lettered (webhooks.dlq); fairness: the hanging account never had more than 4 requests in
flight (2 per endpoint; at its receiver and in the service's record of attempts), and whenever the
healthy endpoint had deliveries due (scheduled, or its person's previous one finished), fewer than
its 2 slots were in flight for at most 5 s at a time outside faults (one claim round, 1 s, plus the
slack of services/webhooks/test/fairness.int.test.ts);
raw copies: every event accepted since the last all-nodes restart is readable (GET
/account/events/recent) or counted by the gateways in glimpse_raw_events_missed_total or
glimpse_raw_events_dropped_total (summed from /metrics over every gateway process); no planted email/phone/property/credential in any service's log, raw events gone
within 24 h by configuration (Kafka) and every Redis key on every master with a TTL within 24 h.
Everything it started is stopped at the end; a run that was killed is cleaned up by the next.

  --short          1 fault cycle, ~40 events/s, 2 000 fuzzer requests (default; 6-7 min on 2 shared cores)
  --full           the soak: 5 fault cycles, then load until at least 100 000 events; 20 000 fuzzer requests
  --events N       load until at least N events were sent (after the fault cycles)
  --cycles N       fault cycles (about 100 s each)
  --rate N         events per second (short 40, full 300)
  --fuzz N         fuzzer requests
  --no-build       do not build the workspace first
  --json FILE      also write the results as JSON
  --help           this text

Service logs stay in .infra/chaos/logs after the run.`;

const MODES = {
  short: {
    cycles: 1,
    rate: 40,
    minEvents: 0,
    people: 200,
    eventWorkers: 16,
    lookupRate: 6,
    lookupWorkers: 2,
    collectRate: 10,
    collectVisitors: 20,
    fuzz: 2000,
    drainMs: 180_000,
  },
  full: {
    cycles: 5,
    rate: 300,
    minEvents: 100_000,
    people: 4000,
    eventWorkers: 64,
    lookupRate: 20,
    lookupWorkers: 4,
    collectRate: 60,
    collectVisitors: 120,
    fuzz: 20_000,
    drainMs: 900_000,
  },
};
const CYCLE_S = 100;
/**
 * The gateways' EVENTS_RATE_LIMIT_PER_SECOND: well above the load's own rate (with its retries after
 * a fault), so that the load is never refused, while the failover's burst (3x it) is.
 */
const eventsLimit = (rate) => Math.max(100, 2 * rate);
const BURST_FACTOR = 3;
/** As deploy/k8s/base/redis/redis.conf: a slot is without a master for about 5 to 7 s after its master dies. */
const REDIS_NODE_TIMEOUT_MS = 5000;
const GATEWAY_METRICS = {
  missed: 'glimpse_raw_events_missed_total',
  missedRedisUnavailable: 'glimpse_raw_events_missed_total{reason="redis_unavailable"}',
  missedMemoryFull: 'glimpse_raw_events_missed_total{reason="memory_full"}',
  dropped: 'glimpse_raw_events_dropped_total',
  redisFailures: 'glimpse_redis_failures_total',
  localEventLimits: 'glimpse_rate_limit_local_total{limiter="events"}',
};
const MAX_EXTRA_LOAD_MS = 60 * 60_000;
const GROUP_ID = 'glimpse-playbook-chaos';
/**
 * The webhooks replicas' settings beyond their defaults. The target policy as in production (SSRF
 * guard, https only) with loopback allowed, the one setting the integration tests use for their
 * local receivers (test/support/webhooks.ts). 8 slots a replica with the default caps (4 per
 * account, 2 per endpoint), as in services/webhooks/test/fairness.int.test.ts: the hanging
 * account's share is half of one replica's slots. Retries from 1 s to 8 s, so a delivery refused
 * or cut short by a fault is retried well within the drain; the time-out stays the default 10 s (a
 * claim's lease is then 2 x 10 + 5 = 25 s).
 */
const WEBHOOKS = { concurrency: 8, account: 4, endpoint: 2, pollMs: 1000, timeoutMs: 10_000, slackMs: 4000 };
const WEBHOOKS_LEASE_MS = 2 * WEBHOOKS.timeoutMs + 5000;
const HANG_PEOPLE = 40;
const VISITORS_GROUP_ID = 'glimpse-visitors-chaos';
const SITE_ORIGIN = 'https://chaos-site.example';
const NAMES = ['signed_up', 'demo_booked', 'form_submitted', 'purchase', 'unsubscribed'];
// Every name both starts and stops something, so the order of a person's events decides the outcome.
const PLAYBOOKS = [
  { name: 'Onboarding', triggers: ['signed_up'], exits: ['purchase', 'unsubscribed'] },
  { name: 'Demo prep', triggers: ['demo_booked'], exits: ['purchase'] },
  { name: 'Form reply', triggers: ['form_submitted'], exits: ['form_submitted', 'unsubscribed'] },
  { name: 'Win-back', triggers: ['unsubscribed'], exits: ['signed_up', 'demo_booked'] },
];
const LOOKUP_PERSONS = 200;
const PERSON_SEED = 4242;

const chaosDir = path.join(REPO_ROOT, '.infra', 'chaos');
const logDir = path.join(chaosDir, 'logs');
const t0 = Date.now();
const elapsed = () => `${((Date.now() - t0) / 1000).toFixed(0).padStart(4)} s`;
const log = (msg) => process.stderr.write(`chaos ${elapsed()}  ${msg}\n`);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function options(argv) {
  const { values } = parseArgs({
    args: argv,
    options: {
      short: { type: 'boolean', default: false },
      full: { type: 'boolean', default: false },
      events: { type: 'string' },
      cycles: { type: 'string' },
      rate: { type: 'string' },
      fuzz: { type: 'string' },
      'no-build': { type: 'boolean', default: false },
      json: { type: 'string' },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.short && values.full) throw new Error('--short or --full, not both');
  const mode = values.full ? 'full' : 'short';
  const m = { ...MODES[mode], mode };
  const whole = (name, min) => {
    if (values[name] === undefined) return undefined;
    const n = Number(values[name]);
    if (!Number.isInteger(n) || n < min) throw new Error(`--${name} must be a whole number ≥ ${min}, got "${values[name]}"`);
    return n;
  };
  m.minEvents = whole('events', 0) ?? m.minEvents;
  m.cycles = whole('cycles', 1) ?? m.cycles;
  m.rate = whole('rate', 1) ?? m.rate;
  m.fuzz = whole('fuzz', 0) ?? m.fuzz;
  return { help: values.help, build: !values['no-build'], json: values.json, m };
}

/** @param {string} url @param {RequestInit} [init] @returns {Promise<{ status: number, body: any }>} */
async function http(url, init = {}) {
  const res = await fetch(url, { ...init, signal: AbortSignal.timeout(15_000) });
  const text = await res.text();
  let body = text;
  try {
    body = JSON.parse(text);
  } catch {
    /* text */
  }
  return { status: res.status, body };
}

async function waitHttp(url, what, timeoutMs = 90_000, okStatus = (s) => s === 200) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      if (okStatus((await fetch(url, { signal: AbortSignal.timeout(3000) })).status)) return;
    } catch {
      /* not yet */
    }
    if (Date.now() > deadline) throw new Error(`${what} not ready on ${url} after ${timeoutMs / 1000} s`);
    await sleep(250);
  }
}

async function main() {
  const opts = options(process.argv.slice(2));
  if (opts.help) {
    console.log(HELP);
    return 0;
  }
  const { m } = opts;
  if (opts.build) {
    log('building the workspace');
    await require('../lib.js').build();
  }
  for (const s of ['gateway', 'playbook', 'enrichment', 'visitors', 'webhooks']) {
    if (!fs.existsSync(path.join(REPO_ROOT, 'services', s, 'dist', 'main.js')))
      throw new Error(`services/${s}/dist/main.js is missing: build first (npm run build)`);
  }
  fs.mkdirSync(chaosDir, { recursive: true });
  const registry = createRegistry(path.join(chaosDir, 'pids.json'));
  await registry.reapLeftovers(log);
  fs.rmSync(logDir, { recursive: true, force: true });
  fs.mkdirSync(logDir, { recursive: true });

  const runId = crypto.randomBytes(4).toString('hex');
  const marker = `chz${crypto.randomBytes(5).toString('hex')}`;
  const did = { faults: [], unexpectedExits: [] };
  const stack = { services: new Map(), kafka: null, pg: null, redis: null, receivers: [], stopping: false };
  const cleanup = async () => {
    if (stack.stopping) return;
    stack.stopping = true;
    log('stopping everything it started');
    // The hanging receiver first: the webhooks replicas then stop without waiting out its requests.
    await Promise.allSettled(stack.receivers.map((r) => r.close()));
    await Promise.allSettled([...stack.services.values()].map((s) => s.stop('SIGTERM', 10_000)));
    await Promise.allSettled([stack.kafka?.stop(), stack.redis?.stop()]);
    await stack.pg?.destroy().catch((err) => log(`postgres: ${err.message}`));
    await registry.stopAll();
  };
  const onSignal = () => {
    cleanup().finally(() => process.exit(130));
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);

  try {
    return await runSuite({ m, opts, registry, stack, did, runId, marker });
  } finally {
    await cleanup();
  }
}

async function runSuite({ m, opts, registry, stack, did, runId, marker }) {
  // ---- infrastructure
  const [pgPort, ...kp] = await freePorts(1 + 12 + 6 + 13);
  const redisPorts = kp.slice(0, 6);
  const redisBusPorts = kp.slice(6, 12);
  const kafkaPorts = [0, 1, 2].map((i) => ({ port: kp[12 + i * 2], controllerPort: kp[12 + i * 2 + 1] }));
  const servicePorts = kp.slice(18);
  log(`starting Postgres (port ${pgPort}), a Redis Cluster (ports ${redisPorts.join(', ')}) and 3 Kafka brokers (${kafkaPorts.map((p) => p.port).join(', ')})`);
  stack.pg = createPrivatePostgres({ port: pgPort, registry });
  stack.redis = createPrivateRedisCluster({
    dir: path.join(chaosDir, 'redis-cluster'),
    ports: redisPorts,
    busPorts: redisBusPorts,
    nodeTimeoutMs: REDIS_NODE_TIMEOUT_MS,
    registry,
    log,
  });
  stack.kafka = createKafkaCluster({ dir: chaosDir, ports: kafkaPorts, onSpawn: (name, pid) => registry.record(name, pid) });
  await stack.pg.init();
  await stack.pg.start();
  await Promise.all([stack.redis.start(), stack.kafka.start()]);
  const databaseUrl = stack.pg.url('glimpse');
  const { ensureDatabase, migrate } = require('../../shared/db/dist/index.js');
  await ensureDatabase(databaseUrl);
  await migrate({ databaseUrl, migrationsDir: path.join(REPO_ROOT, 'prisma', 'migrations'), log: () => {} });
  log('infrastructure up, migrations applied');

  // ---- services
  const env = {
    ...process.env,
    NODE_ENV: 'development',
    LOG_LEVEL: 'info',
    DATABASE_URL: databaseUrl,
    REDIS_CLUSTER_NODES: stack.redis.nodes.join(','),
    REDIS_URL: undefined,
    REDIS_PASSWORD: undefined,
    EVENTS_RATE_LIMIT_PER_SECOND: String(eventsLimit(m.rate)),
    KAFKA_BROKERS: stack.kafka.brokers.join(','),
    HOST: '127.0.0.1',
    KAFKAJS_NO_PARTITIONER_WARNING: '1',
    PLAYBOOK_GROUP_ID: GROUP_ID,
    PLAYBOOK_SESSION_TIMEOUT_MS: '6000',
    VISITORS_GROUP_ID,
    VISITORS_SESSION_TIMEOUT_MS: '6000',
    // The gateway's token (its calls to the internal services, and this script's), and the callers
    // every internal service accepts (each keeps those it accepts; production refuses either unset).
    ...internalTokensEnvForRun(),
  };
  const [gw1, gw2, en1, en2, pb1, pb2, pb3, pb4, vi1, vi2, wh1, wh2] = servicePorts;
  const webhooksSecretKey = crypto.randomBytes(32).toString('hex');
  const webhooksEnv = (port, enrichment) => ({
    WEBHOOKS_PORT: String(port),
    ENRICHMENT_URL: `http://127.0.0.1:${enrichment}`,
    // Its own token (to enrichment); the callers it accepts come from INTERNAL_TOKENS.
    INTERNAL_TOKEN: env.WEBHOOKS_INTERNAL_TOKEN,
    WEBHOOKS_SECRET_KEY: webhooksSecretKey,
    WEBHOOKS_GROUP_ID: 'glimpse-webhooks-chaos',
    WEBHOOKS_ACCOUNTS_GROUP_ID: 'glimpse-webhooks-accounts-chaos',
    WEBHOOKS_IDENTIFIED_GROUP_ID: 'glimpse-webhooks-identified-chaos',
    WEBHOOKS_COMPANIES_GROUP_ID: 'glimpse-webhooks-companies-chaos',
    WEBHOOKS_SESSION_TIMEOUT_MS: '6000',
    WEBHOOKS_BLOCK_PRIVATE_TARGETS: 'true',
    WEBHOOKS_REQUIRE_HTTPS: 'true',
    WEBHOOKS_ALLOW_LOOPBACK: 'true',
    WEBHOOKS_CONCURRENCY: String(WEBHOOKS.concurrency),
    WEBHOOKS_ACCOUNT_CONCURRENCY: String(WEBHOOKS.account),
    WEBHOOKS_ENDPOINT_CONCURRENCY: String(WEBHOOKS.endpoint),
    WEBHOOKS_POLL_INTERVAL_MS: String(WEBHOOKS.pollMs),
    WEBHOOKS_TIMEOUT_MS: String(WEBHOOKS.timeoutMs),
    WEBHOOKS_RETRY_BASE_MS: '1000',
    WEBHOOKS_RETRY_MAX_DELAY_MS: '8000',
  });
  const specs = {
    'enrichment-1': { service: 'enrichment', env: { ENRICHMENT_PORT: String(en1) }, url: `http://127.0.0.1:${en1}` },
    'enrichment-2': { service: 'enrichment', env: { ENRICHMENT_PORT: String(en2) }, url: `http://127.0.0.1:${en2}` },
    'playbook-1': { service: 'playbook', env: { PLAYBOOK_PORT: String(pb1) }, url: `http://127.0.0.1:${pb1}` },
    'playbook-2': { service: 'playbook', env: { PLAYBOOK_PORT: String(pb2) }, url: `http://127.0.0.1:${pb2}` },
    'playbook-3': { service: 'playbook', env: { PLAYBOOK_PORT: String(pb3) }, url: `http://127.0.0.1:${pb3}` },
    'playbook-4': { service: 'playbook', env: { PLAYBOOK_PORT: String(pb4) }, url: `http://127.0.0.1:${pb4}` },
    'visitors-1': { service: 'visitors', env: { VISITORS_PORT: String(vi1) }, url: `http://127.0.0.1:${vi1}` },
    'visitors-2': { service: 'visitors', env: { VISITORS_PORT: String(vi2) }, url: `http://127.0.0.1:${vi2}` },
    'webhooks-1': { service: 'webhooks', env: webhooksEnv(wh1, en1), url: `http://127.0.0.1:${wh1}` },
    'webhooks-2': { service: 'webhooks', env: webhooksEnv(wh2, en2), url: `http://127.0.0.1:${wh2}` },
    'gateway-1': {
      service: 'gateway',
      env: {
        PORT: String(gw1),
        ENRICHMENT_URL: `http://127.0.0.1:${en1}`,
        PLAYBOOK_URL: `http://127.0.0.1:${pb1}`,
        VISITORS_URL: `http://127.0.0.1:${vi1}`,
        WEBHOOKS_URL: `http://127.0.0.1:${wh1}`,
      },
      url: `http://127.0.0.1:${gw1}`,
    },
    'gateway-2': {
      service: 'gateway',
      env: {
        PORT: String(gw2),
        ENRICHMENT_URL: `http://127.0.0.1:${en2}`,
        PLAYBOOK_URL: `http://127.0.0.1:${pb2}`,
        VISITORS_URL: `http://127.0.0.1:${vi2}`,
        WEBHOOKS_URL: `http://127.0.0.1:${wh2}`,
      },
      url: `http://127.0.0.1:${gw2}`,
    },
  };
  const gateways = ['gateway-1', 'gateway-2'].map((n) => specs[n].url);
  const killedOnPurpose = new Set();
  const downWindows = [[], []]; // per gateway: { from, to }

  function start(name) {
    const spec = specs[name];
    const svc = startNodeService({
      name,
      main: path.join(REPO_ROOT, 'services', spec.service, 'dist', 'main.js'),
      env: { ...env, DATABASE_URL: serviceDatabaseUrl(databaseUrl, spec.service), ...spec.env },
      logFile: path.join(logDir, `${name}.log`),
      cwd: REPO_ROOT,
      registry,
    });
    stack.services.set(name, svc);
    svc.exited.then(({ code, signal }) => {
      if (stack.stopping || killedOnPurpose.has(svc.pid) || stack.services.get(name) !== svc) return;
      did.unexpectedExits.push({ name, code, signal, at: elapsed() });
      log(`!! ${name} (pid ${svc.pid}) exited by itself (${signal ?? code}); restarting it, as Kubernetes would`);
      const g = name.startsWith('gateway-') ? Number(name.slice(-1)) - 1 : -1;
      if (g >= 0) downWindows[g].push({ from: Date.now(), to: null });
      setTimeout(() => {
        if (stack.stopping || stack.services.get(name) !== svc) return;
        const again = start(name);
        if (g >= 0)
          waitHttp(`${spec.url}/healthz`, name, 60_000).then(
            () => {
              downWindows[g].at(-1).to = Date.now();
            },
            () => {},
          );
        void again;
      }, 2000);
    });
    return svc;
  }
  async function kill(name, signal = 'SIGKILL') {
    const svc = stack.services.get(name);
    killedOnPurpose.add(svc.pid);
    await svc.stop(signal, 15_000);
    stack.services.delete(name);
  }

  log('starting 2 enrichment, 3 playbook, 2 visitors, 2 webhooks and 2 gateway processes');
  const backends = ['enrichment-1', 'enrichment-2', 'playbook-1', 'playbook-2', 'playbook-3', 'visitors-1', 'visitors-2', 'webhooks-1', 'webhooks-2'];
  for (const n of backends) start(n);
  await Promise.all(backends.map((n) => waitHttp(`${specs[n].url}/readyz`, n)));
  for (const n of ['gateway-1', 'gateway-2']) start(n);
  await Promise.all(['gateway-1', 'gateway-2'].map((n) => waitHttp(`${specs[n].url}/readyz`, n)));

  // ---- accounts, dataset, playbooks
  const dbs = openServiceDbs(databaseUrl);
  const { createAccount, createApiKey, createEventToken, SCOPES } = require('../../shared/auth/dist/index.js');
  const { generatePerson, importPersons, importVisitors } = require('../../services/enrichment/dist/index.js');
  const { demoVisitorId } = require('../../tools/cli/dist/commands/imports.js');
  const account = await createAccount(dbs.identity, `chaos load ${runId}`);
  const token = (await createEventToken(dbs.identity, account.id)).secret;
  const apiKey = (await createApiKey(dbs.identity, account.id, [...SCOPES])).secret;
  const fuzzAccount = await createAccount(dbs.identity, `chaos fuzz ${runId}`);
  const fuzzToken = (await createEventToken(dbs.identity, fuzzAccount.id)).secret;
  const fuzzKey = (await createApiKey(dbs.identity, fuzzAccount.id, [...SCOPES])).secret;
  // The webhooks' second account: its endpoints never answer (fairness under the faults).
  const hangAccount = await createAccount(dbs.identity, `chaos hang ${runId}`);
  const hangToken = (await createEventToken(dbs.identity, hangAccount.id)).secret;
  const hangKey = (await createApiKey(dbs.identity, hangAccount.id, [...SCOPES])).secret;
  // The Redis failover: the master that owns the load account's slot is the one killed; the burst's
  // account is one whose keys live on that same master (accounts are made until one hashes there).
  const loadRawKey = `glimpse:{a:${account.id}}:raw`;
  const loadSlot = await stack.redis.keySlot(loadRawKey);
  const loadMaster = await stack.redis.slotMaster(loadSlot);
  let burstAccount = null;
  for (let i = 0; i < 40 && !burstAccount; i++) {
    const candidate = await createAccount(dbs.identity, `chaos burst ${runId} ${i}`);
    if ((await stack.redis.masterOf(`glimpse:{a:${candidate.id}}:raw`)) === loadMaster) burstAccount = candidate;
  }
  if (!burstAccount) throw new Error(`no account of 40 hashed to ${loadMaster}, the master of the load account's slot ${loadSlot}`);
  const burstToken = (await createEventToken(dbs.identity, burstAccount.id)).secret;
  const burstKey = (await createApiKey(dbs.identity, burstAccount.id, [...SCOPES])).secret;
  log(
    `the load account's keys are in slot ${loadSlot} on ${loadMaster}; the burst account's slot ${await stack.redis.keySlot(`glimpse:{a:${burstAccount.id}}:raw`)} is on the same master`,
  );
  const persons = Array.from({ length: LOOKUP_PERSONS }, (_, i) => generatePerson(i, PERSON_SEED));
  async function* lines(n, f) {
    for (let i = 0; i < n; i++) yield JSON.stringify(f(i));
  }
  await importPersons(
    lines(persons.length, (i) => persons[i]),
    { databaseUrl, defaultPhoneRegion: 'US' },
  );
  await importVisitors(
    lines(persons.length, (i) => ({ visitorId: demoVisitorId(account.id, i), email: persons[i].traits.work_email, page_views: 3 })),
    account.id,
    { db: dbs.enrichment, defaultPhoneRegion: 'US' },
  );
  await importVisitors(
    lines(5, (i) => ({ visitorId: demoVisitorId(fuzzAccount.id, i), email: persons[i].traits.work_email, page_views: 1 })),
    fuzzAccount.id,
    { db: dbs.enrichment, defaultPhoneRegion: 'US' },
  );
  await dbs.disconnect();
  const lookupPersons = persons
    .map((p, i) => ({ visitorId: demoVisitorId(account.id, i), email: p.traits.work_email, phone: p.traits.mobile_phone }))
    .filter((p) => p.email && p.phone);

  // Rule 3: a playbook can be triggered only by a name already sent.
  const primer = `catalog.${marker}@chaos-load.example`;
  const prime = async (eventToken, names, email) => {
    for (const event of names) {
      const res = await http(`${gateways[0]}/events`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${eventToken}` },
        body: JSON.stringify({ event, email }),
      });
      if (res.status !== 200) throw new Error(`priming ${event}: ${res.status} ${JSON.stringify(res.body)}`);
    }
  };
  await prime(token, NAMES, primer);
  await prime(hangToken, ['signed_up'], `hang-catalog.${marker}@chaos-load.example`);
  const auth = { authorization: `Bearer ${apiKey}` };
  const hangAuth = { authorization: `Bearer ${hangKey}` };
  const waitCatalog = async (headers, names) => {
    const catalogDeadline = Date.now() + 60_000;
    for (;;) {
      const res = await http(`${gateways[0]}/account/events/catalog`, { headers });
      const items = res.body?.items ?? res.body?.names ?? res.body?.events ?? (Array.isArray(res.body) ? res.body : []);
      const have = new Set(items.map((e) => e.name ?? e));
      if (names.every((n) => have.has(n))) return;
      if (Date.now() > catalogDeadline) throw new Error(`the catalog did not get the primed names in 60 s: ${JSON.stringify(res.body).slice(0, 300)}`);
      await sleep(300);
    }
  };
  await Promise.all([waitCatalog(auth, NAMES), waitCatalog(hangAuth, ['signed_up'])]);
  const playbooks = [];
  for (const p of PLAYBOOKS) {
    const res = await http(`${gateways[0]}/account/playbooks`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify(p),
    });
    if (res.status !== 201 && res.status !== 200) throw new Error(`creating playbook ${p.name}: ${res.status} ${JSON.stringify(res.body)}`);
    playbooks.push({ id: res.body.id, triggers: p.triggers, exits: p.exits });
  }
  // A site for the tag's page views, through the sites API like a site owner.
  const siteRes = await http(`${gateways[0]}/account/sites`, {
    method: 'POST',
    headers: { ...auth, 'content-type': 'application/json' },
    body: JSON.stringify({ name: `Chaos ${runId}`, origins: [SITE_ORIGIN] }),
  });
  if (siteRes.status !== 201) throw new Error(`creating the site: ${siteRes.status} ${JSON.stringify(siteRes.body)}`);
  const site = siteRes.body;
  log(`account, ${lookupPersons.length} persons with visitors, ${playbooks.length} playbooks, a site ready`);

  // Webhooks, through the public management API like an account owner: the load account's endpoint
  // at the healthy receiver (every effect the load produces goes to it), the hang account's two at
  // the receiver that never answers, and a playbook that each of its people start.
  const healthy = await startHealthyReceiver();
  stack.receivers.push(healthy);
  const hanging = await startHangingReceiver();
  stack.receivers.push(hanging);
  const createEndpoint = async (headers, url, types) => {
    const res = await http(`${gateways[0]}/account/webhooks`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify({ url, events: types }),
    });
    if (res.status !== 201) throw new Error(`creating the webhook endpoint ${url}: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body;
  };
  const endpoint = await createEndpoint(auth, healthy.url, ['enrollment.started', 'enrollment.stopped']);
  healthy.setSecret(endpoint.secret);
  const hangEndpoints = [
    await createEndpoint(hangAuth, `${hanging.base}/h0`, ['enrollment.started']),
    await createEndpoint(hangAuth, `${hanging.base}/h1`, ['enrollment.started']),
  ];
  const hangPlaybook = await http(`${gateways[0]}/account/playbooks`, {
    method: 'POST',
    headers: { ...hangAuth, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'Hang', triggers: ['signed_up'] }),
  });
  if (hangPlaybook.status !== 201 && hangPlaybook.status !== 200)
    throw new Error(`creating the hang account's playbook: ${hangPlaybook.status} ${JSON.stringify(hangPlaybook.body)}`);
  await Promise.all(
    Array.from({ length: HANG_PEOPLE }, async (_, i) => {
      const send = () =>
        http(`${gateways[i % 2]}/events`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${hangToken}`, 'idempotency-key': `hang-${marker}-${i}` },
          body: JSON.stringify({ event: 'signed_up', email: `hang${i}.${marker}@chaos-load.example` }),
        });
      let res = await send();
      // Set-up, before any fault: a 503 (the brokers still settling on a loaded machine, a fresh-clone run
      // once) is retried as the API says, under the same Idempotency-Key, a few times.
      for (let attempt = 1; res.status === 503 && attempt <= 5; attempt += 1) {
        await new Promise((r) => setTimeout(r, 1000 * attempt));
        res = await send();
      }
      if (res.status !== 200) throw new Error(`the hang account's event ${i}: ${res.status} ${JSON.stringify(res.body)}`);
    }),
  );
  log(
    `webhooks: the load account's endpoint at ${healthy.url}; the hang account's ${hangEndpoints.length} endpoints at ${hanging.base} with ${HANG_PEOPLE} people enrolled`,
  );

  // ---- load and faults
  const explained = (g, _kind, start, end) => downWindows[g].some((w) => w.from <= end + 100 && (w.to ?? Infinity) >= start - 100);
  const people = Array.from({ length: m.people }, (_, i) => ({ email: `p${i}.${marker}@chaos-load.example` }));
  const events = createEventLoad({ gateways, token, people, names: NAMES, rate: m.rate, workers: m.eventWorkers, runId, marker, explained });
  const lookups = createLookupLoad({ gateways, apiKey, persons: lookupPersons, rate: m.lookupRate, workers: m.lookupWorkers, explained });
  const collects = createCollectLoad({ gateways, siteKey: site.key, origin: SITE_ORIGIN, visitors: m.collectVisitors, rate: m.collectRate, explained });
  const loadStart = Date.now();
  const fault = (what, detail = '') => {
    did.faults.push({ at: ((Date.now() - loadStart) / 1000).toFixed(0), what, detail });
    log(`fault: ${what}${detail ? ` (${detail})` : ''}`);
  };
  const background = [];
  const later = (ms, fn) =>
    background.push(
      sleep(ms)
        .then(fn)
        .catch((err) => log(`!! ${err.message}`)),
    );
  const progress = setInterval(() => {
    log(`load: ${events.sent()} events sent, ${events.acked()} answered 200, ${lookups.total()} lookups, ${collects.ackedCount()} page views answered 200`);
  }, 15_000);

  // ---- the gateways' raw-copy counters, summed over every gateway process (a killed gateway's
  // counters die with it: each process's last scrape is kept, and a gateway is scraped before it is
  // killed on purpose).
  const lives = new Map(); // `${name}#${pid}` -> { name, pid, values }
  async function scrapeGateway(name) {
    const svc = stack.services.get(name);
    if (!svc) return;
    try {
      const res = await fetch(`${specs[name].url}/metrics`, { signal: AbortSignal.timeout(3000) });
      if (res.status === 200) lives.set(`${name}#${svc.pid}`, { name, pid: svc.pid, values: parseMetrics(await res.text()) });
    } catch {
      /* down: its last scrape stands */
    }
  }
  const scrapeGateways = () => Promise.all(['gateway-1', 'gateway-2'].map(scrapeGateway));
  const gatewayTotals = () => {
    const totals = Object.fromEntries(Object.keys(GATEWAY_METRICS).map((k) => [k, 0]));
    for (const life of lives.values()) for (const [k, metric] of Object.entries(GATEWAY_METRICS)) totals[k] += life.values[metric] ?? 0;
    return totals;
  };
  const scraper = setInterval(() => void scrapeGateways(), 2000);
  /** Set after each all-nodes Redis restart: events accepted from then on must have a readable raw copy or be counted. */
  let rawWindow = null;
  const failovers = [];
  const restarts = [];

  async function redisStopped() {
    fault('Redis stopped', `all ${stack.redis.nodes.length} nodes SIGTERMed, 8 s`);
    const stoppedAt = Date.now();
    await stack.redis.stopAll();
    await sleep(8000);
    const startedAt = Date.now();
    await stack.redis.startAll();
    const healthyAt = Date.now();
    fault(
      'Redis started again',
      `the nodes rejoined from nodes.conf, cluster_state ok ${((healthyAt - startedAt) / 1000).toFixed(1)} s after they were started`,
    );
    const back = await waitGatewaysRedis(startedAt);
    log(`the gateways use Redis again ${back.ms === null ? 'NOT within 60 s' : `${(back.ms / 1000).toFixed(1)} s after the nodes were started`}`);
    restarts.push({ clusterMs: healthyAt - startedAt, gatewaysMs: back.ms, detail: back.detail });
    await scrapeGateways();
    rawWindow = { from: Date.now(), stoppedAt, baseline: gatewayTotals() };
  }

  /** /readyz of a gateway: 200 and its Redis check ok. */
  const redisReady = (g) =>
    fetch(`${g}/readyz`, { signal: AbortSignal.timeout(3000) }).then(
      async (r) => r.status === 200 && /** @type {{ checks?: Record<string, string> }} */ (await r.json()).checks?.redis === 'ok',
      () => false,
    );

  /** Until every gateway says its Redis is ok and the load account's raw copies can be read (the account's slot answers). */
  async function waitGatewaysRedis(since, timeoutMs = 60_000) {
    const deadline = Date.now() + timeoutMs;
    let detail = '';
    while (Date.now() < deadline) {
      const ready = await Promise.all(gateways.map(redisReady));
      const reads = await Promise.all(
        gateways.map((g) =>
          http(`${g}/account/events/recent?limit=1`, { headers: { authorization: `Bearer ${apiKey}` } }).then(
            (r) => r.status,
            () => 0,
          ),
        ),
      );
      if (ready.every(Boolean) && reads.every((st) => st === 200)) return { ms: Date.now() - since, detail: '' };
      detail = `readyz redis ok: ${ready.join('/')}; recent: ${reads.join('/')}`;
      await sleep(250);
    }
    return { ms: null, detail };
  }

  /** Until GET /account/events/recent shows a copy received after `since`, and every gateway's /readyz is 200. */
  async function watchRecovery(since, timeoutMs = 60_000) {
    const deadline = Date.now() + timeoutMs;
    let rawMs = null;
    let readyMs = null;
    while (Date.now() < deadline && (rawMs === null || readyMs === null)) {
      if (rawMs === null) {
        const r = await http(`${gateways[0]}/account/events/recent?limit=20`, { headers: { authorization: `Bearer ${apiKey}` } }).catch(() => null);
        if (r?.status === 200 && (r.body?.items ?? []).some((e) => Date.parse(e.receivedAt) > since)) rawMs = Date.now() - since;
      }
      if (readyMs === null) {
        const ready = await Promise.all(gateways.map(redisReady));
        if (ready.every(Boolean)) readyMs = Date.now() - since;
      }
      await sleep(250);
    }
    return { rawMs, readyMs };
  }

  async function redisFailover(c) {
    const master = await stack.redis.slotMaster(loadSlot);
    if (!master) throw new Error(`no master serves slot ${loadSlot} before the failover`);
    // The burst's token is known to gateway-1 (its credential cache) before the kill.
    const warmStart = Date.now();
    const warm = await http(`${gateways[0]}/events`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${burstToken}` },
      body: JSON.stringify({ event: 'signed_up', email: `warmup.${marker}@chaos-load.example`, properties: { warmup: c } }),
    }).catch(() => ({ status: 0 }));
    const warmup = { status: warm.status, startedAt: warmStart, at: Date.now() };
    await scrapeGateways();
    const before = gatewayTotals();
    const localBefore = lives.get(`gateway-1#${stack.services.get('gateway-1')?.pid}`)?.values[GATEWAY_METRICS.localEventLimits] ?? 0;
    fault('SIGKILL Redis master', `${master}, master of slot ${loadSlot} (glimpse:{a:<load account>}:raw)`);
    const killed = await stack.redis.killMaster(master);
    const killedAt = Date.now();
    const limit = eventsLimit(m.rate);
    const burst = sleep(300).then(() =>
      sendBurst({
        gateway: gateways[0],
        token: burstToken,
        count: BURST_FACTOR * limit,
        batchSize: Math.ceil(limit / 4),
        runId: `${runId}c${c}`,
        marker,
        tag: `c${c}`,
      }),
    );
    let promotion;
    try {
      promotion = await stack.redis.waitForPromotion(loadSlot, { from: master, timeoutMs: 60_000 });
    } catch (err) {
      await burst;
      throw err;
    }
    const promotedAt = Date.now();
    fault('Redis replica promoted', `${promotion.addr} serves slot ${loadSlot} ${((promotedAt - killedAt) / 1000).toFixed(1)} s after the kill`);
    const recovery = watchRecovery(promotedAt);
    const answers = await burst;
    await scrapeGateways();
    const afterPromotion = gatewayTotals();
    const localAfter = lives.get(`gateway-1#${stack.services.get('gateway-1')?.pid}`)?.values[GATEWAY_METRICS.localEventLimits] ?? 0;
    await sleep(6000);
    fault('Redis node restarted', `${master} (pid ${killed.pid} was killed), rejoins as a replica of ${promotion.addr}`);
    const back = await stack.redis.restart(master, { timeoutMs: 60_000 }).catch((err) => ({ error: err.message, role: null, ms: null }));
    failovers.push({
      cycle: c + 1,
      master,
      killedPid: killed.pid,
      slot: loadSlot,
      promoted: promotion.addr,
      killedAt,
      promotedAt,
      noMasterMs: promotedAt - killedAt,
      warmup,
      burst: answers,
      limit,
      missedDuringFailover: afterPromotion.missed - before.missed,
      localEventDecisions: localAfter - localBefore,
      rejoined: { role: back.role, ms: back.ms, error: back.error ?? null },
      recovery: await recovery,
    });
  }

  async function killConsumer(name) {
    if (!stack.services.has(name)) return;
    fault('SIGKILL playbook replica', name);
    await kill(name);
    later(3000, () => start(name));
  }
  async function killVisitors(name) {
    if (!stack.services.has(name)) return;
    fault('SIGKILL visitors replica', name);
    await kill(name);
    later(3000, () => start(name));
  }
  /** When a fault can delay a webhook delivery: a killed replica's claims until their lease ends, Postgres down or hung. */
  const deliveryFaults = [];
  async function killWebhooks(name) {
    if (!stack.services.has(name)) return;
    fault('SIGKILL webhooks replica', name);
    const from = Date.now();
    await kill(name);
    later(3000, () => start(name));
    deliveryFaults.push({ from, to: from + WEBHOOKS_LEASE_MS + 10_000 });
  }
  async function killGateway(g) {
    const name = `gateway-${g + 1}`;
    fault('SIGKILL gateway', name);
    await scrapeGateway(name);
    const w = { from: Date.now(), to: null };
    downWindows[g].push(w);
    await kill(name);
    await sleep(3000);
    start(name);
    await waitHttp(`${specs[name].url}/healthz`, name, 60_000);
    w.to = Date.now();
  }
  async function killBroker(id) {
    const pending = await stack.kafka.underReplicated().catch(() => ['?']);
    if (pending.length) log(`(broker kill: ${pending.length} partitions still catching up; waiting up to 30 s)`);
    for (let i = 0; i < 30 && (await stack.kafka.underReplicated().catch(() => ['?'])).length; i++) await sleep(1000);
    fault('SIGKILL Kafka broker', `kafka-${id}`);
    stack.kafka.kill(id);
  }

  // One cycle of faults; each keeps its duration whatever the steps before it cost.
  async function cycle(c) {
    const broker = (c % 3) + 1;
    await sleep(3000);
    await killConsumer('playbook-2');
    await sleep(4000);
    fault('playbook replica joins', 'playbook-4');
    start('playbook-4');
    await killVisitors('visitors-1');
    await killWebhooks('webhooks-1');
    await sleep(4000);
    await killGateway(c % 2);
    await sleep(3000);
    await killBroker(broker);
    const brokerBack = sleep(12_000).then(async () => {
      fault('Kafka broker restarted', `kafka-${broker}`);
      await stack.kafka.restart(broker);
    });
    await sleep(5000);
    fault('playbook replica leaves (SIGTERM)', 'playbook-4');
    await kill('playbook-4', 'SIGTERM');
    await sleep(3000);
    await killConsumer('playbook-3');
    await killVisitors('visitors-2');
    await killWebhooks('webhooks-2');
    await brokerBack;
    await sleep(4000);
    await redisStopped();
    await sleep(4000);
    await redisFailover(c).catch((err) => {
      log(`!! Redis failover: ${err.message}`);
      failovers.push({ cycle: c + 1, error: err.message });
    });
    await sleep(4000);
    fault('Postgres stopped (immediate shutdown)', '10 s');
    const pgStopped = { from: Date.now(), to: Infinity };
    deliveryFaults.push(pgStopped);
    await stack.pg.stop('immediate');
    await sleep(10_000);
    await stack.pg.start();
    pgStopped.to = Date.now() + 5000;
    await sleep(4000);
    fault('Postgres hung (SIGSTOP of the postmaster and its processes)', `8 s, ${stack.pg.signalAll('SIGSTOP')} processes`);
    const pgHung = { from: Date.now(), to: Infinity };
    deliveryFaults.push(pgHung);
    await sleep(8000);
    stack.pg.signalAll('SIGCONT');
    pgHung.to = Date.now() + 5000;
    await sleep(3000);
    await killConsumer('playbook-1');
    await sleep(5000);
  }

  log(
    `load: ${m.rate} events/s over ${m.people} people, ${m.lookupRate} lookups/s; ${m.cycles} fault cycle(s) of ${CYCLE_S} s${m.minEvents ? `, then until ${m.minEvents} events` : ''}`,
  );
  events.start();
  lookups.start();
  collects.start();
  try {
    for (let c = 0; c < m.cycles; c++) {
      log(`fault cycle ${c + 1}/${m.cycles}`);
      await cycle(c);
    }
    const extraDeadline = Date.now() + MAX_EXTRA_LOAD_MS;
    while (events.sent() < m.minEvents && Date.now() < extraDeadline) await sleep(1000);
  } finally {
    clearInterval(progress);
    clearInterval(scraper);
    await Promise.all([events.stop(), lookups.stop(), collects.stop()]);
    await Promise.all(background);
  }
  const loadSeconds = (Date.now() - loadStart) / 1000;
  log(`load done: ${events.sent()} events in ${loadSeconds.toFixed(0)} s, ${events.acked()} answered 200`);

  // ---- recovery: every service ready again
  const names = [
    'gateway-1',
    'gateway-2',
    'enrichment-1',
    'enrichment-2',
    'playbook-1',
    'playbook-2',
    'playbook-3',
    'visitors-1',
    'visitors-2',
    'webhooks-1',
    'webhooks-2',
  ];
  const recoveryStart = Date.now();
  const recovered = await Promise.all(
    names.map((n) =>
      waitHttp(`${specs[n].url}/readyz`, n, 180_000).then(
        () => true,
        () => false,
      ),
    ),
  );
  const recoverySeconds = (Date.now() - recoveryStart) / 1000;
  const unready = names.filter((_, i) => !recovered[i]);
  log(unready.length ? `not ready after 180 s: ${unready.join(', ')}` : `every service ready ${recoverySeconds.toFixed(0)} s after the load`);

  // ---- raw copies and the gateways' counters, before the fuzzer sends events of its own
  await scrapeGateways();
  const finalTotals = gatewayTotals();
  log('reading every raw copy of the load and burst accounts (GET /account/events/recent)');
  const noCopies = (err) => ({ error: err.message, items: [], dropped: 0, pages: 0 });
  const rawLoad = await readRawCopies({ gateway: gateways[0], apiKey }).catch(noCopies);
  const rawBurst = await readRawCopies({ gateway: gateways[0], apiKey: burstKey }).catch(noCopies);

  // ---- fuzzer (while the consumers drain)
  const { fuzz } = require('./fuzzer.js');
  const perGateway = Math.ceil(m.fuzz / 2);
  const fuzzResults = [];
  for (const [g, url] of gateways.entries()) {
    if (m.fuzz === 0) break;
    log(`fuzzer: ${perGateway} requests on gateway-${g + 1}`);
    fuzzResults.push(
      await fuzz({ url, count: perGateway, seed: 1000 + g, concurrency: 8, eventToken: fuzzToken, apiKey: fuzzKey, visitor: demoVisitorId(fuzzAccount.id, 0) }),
    );
  }
  const fuzzStatuses = {};
  const fuzzCauses = {};
  for (const r of fuzzResults) {
    for (const [k, v] of Object.entries(r.statuses)) fuzzStatuses[k] = (fuzzStatuses[k] ?? 0) + v;
    for (const [k, v] of Object.entries(r.causes)) fuzzCauses[k] = (fuzzCauses[k] ?? 0) + v;
  }
  const fuzzSent = fuzzResults.reduce((n, r) => n + r.sent, 0);

  // ---- drain
  const { Client } = require('pg');
  const pg = new Client({ connectionString: databaseUrl });
  await pg.connect();
  log('waiting for the consumers to drain events.inbound');
  const drainDeadline = Date.now() + m.drainMs;
  let lag;
  for (;;) {
    lag = await groupLag(stack.kafka.brokers, GROUP_ID).catch(() => Infinity);
    if (lag === 0) break;
    if (Date.now() > drainDeadline) break;
    await sleep(2000);
  }
  let visitorsLag;
  for (;;) {
    visitorsLag = await groupLag(stack.kafka.brokers, VISITORS_GROUP_ID, 'visitors.collected').catch(() => Infinity);
    if (visitorsLag === 0 || Date.now() > drainDeadline) break;
    await sleep(1000);
  }
  await sleep(2000); // the last batch's transaction commits before its offset; give the tail a moment
  // Webhooks: until the endpoint has every effect of the load account (retries after the faults
  // come within 8 s, a killed replica's claims within their 25 s lease).
  log('waiting for the webhooks replicas to deliver every effect of the load account');
  const webhooksStart = Date.now();
  const webhooksDeadline = Math.max(drainDeadline, webhooksStart + 90_000);
  let undelivered;
  for (;;) {
    undelivered = (await expectedEffects(pg, account.id, new Set([primer])).catch(() => [{ id: 'postgres unreachable' }])).filter(
      (e) => !healthy.delivered(e.id),
    );
    if (undelivered.length === 0 || Date.now() > webhooksDeadline) break;
    await sleep(1000);
  }
  const webhooksDrained = {
    name: `the webhooks replicas deliver every effect of the load account (within ${Math.round((webhooksDeadline - webhooksStart) / 1000)} s of the playbook replicas' drain)`,
    ok: undelivered.length === 0,
    detail:
      undelivered.length === 0 ? `all, ${((Date.now() - webhooksStart) / 1000).toFixed(0)} s after it` : `${undelivered.length} not delivered at the deadline`,
  };
  const drained = {
    name: `the playbook replicas drain events.inbound (within ${m.drainMs / 1000} s)`,
    ok: lag === 0,
    detail: lag === 0 ? 'lag 0' : `lag ${lag} at the deadline`,
  };
  const visitorsDrained = {
    name: `the visitors replicas drain visitors.collected (within ${m.drainMs / 1000} s)`,
    ok: visitorsLag === 0,
    detail: visitorsLag === 0 ? 'lag 0' : `lag ${visitorsLag} at the deadline`,
  };

  // ---- checks
  log('checking');
  const checks = [
    {
      name: 'every service ready again after the faults (/readyz 200 within 180 s)',
      ok: unready.length === 0,
      detail: unready.length ? `not ready: ${unready.join(', ')}` : `all ${names.length} ready ${recoverySeconds.toFixed(0)} s after the load ended`,
    },
    drained,
    visitorsDrained,
    webhooksDrained,
  ];
  const delivery = await deliveryChecks({ brokers: stack.kafka.brokers, pg, accountId: account.id, playbooks, load: events, skipEmails: new Set([primer]) });
  checks.push(...delivery.results);
  const redisResult = redisChecks({
    failovers,
    restarts,
    inbound: delivery.inbound,
    burstAccountId: burstAccount.id,
    rawWindow,
    finalTotals,
    rawLoad,
    rawBurst,
    load: events,
    marker,
  });
  checks.push(...redisResult.results);
  const webhooksResult = await webhooksChecks({
    pg,
    brokers: stack.kafka.brokers,
    readTopic,
    accountId: account.id,
    skipEmails: new Set([primer]),
    healthy,
    hanging,
    endpointId: endpoint.id,
    hangEndpointIds: hangEndpoints.map((e) => e.id),
    faultWindows: deliveryFaults,
    caps: { account: WEBHOOKS.account, endpoint: WEBHOOKS.endpoint, pollMs: WEBHOOKS.pollMs },
    boundMs: WEBHOOKS.pollMs + WEBHOOKS.slackMs,
  });
  checks.push(...webhooksResult.results);
  await pg.end();
  const details = (vid) =>
    http(`${specs['visitors-1'].url}/internal/visitors/${vid}/details`, {
      headers: { 'x-glimpse-internal-token': env.INTERNAL_TOKEN, 'x-glimpse-account-id': account.id },
    });
  const visitorsResult = await visitorsChecks({ brokers: stack.kafka.brokers, siteId: site.id, load: collects, details });
  checks.push(...visitorsResult.results);
  const collectFailures = Object.entries(collects.outcomes).filter(([k]) => k.startsWith('FAIL '));
  checks.push({
    name: 'collect: every page view answered 200 (or 503 with Retry-After, retried), none given up',
    ok: collectFailures.length === 0 && collects.gaveUp() === 0,
    detail: collectFailures.length ? collectFailures.map(([k, v]) => `${k.slice(5)}: ${v}`).join('; ') : `${collects.gaveUp()} given up`,
  });
  const eventFailures = Object.entries(events.outcomes).filter(([k]) => k.startsWith('FAIL '));
  const lookupFailures = Object.entries(lookups.outcomes).filter(([k]) => k.startsWith('FAIL '));
  checks.push({
    name: 'load: every answer 200, or 503 with Retry-After during a fault; no other 5xx/4xx, no connection closed unanswered (but by a killed gateway)',
    ok: eventFailures.length === 0 && lookupFailures.length === 0,
    detail:
      eventFailures.length + lookupFailures.length === 0
        ? 'none else'
        : [...eventFailures, ...lookupFailures].map(([k, v]) => `${k.slice(5)}: ${v}`).join('; '),
  });
  const gaveUp = events.outcomes['gave up (never 200)'] ?? 0;
  checks.push({
    name: 'every event eventually answered 200 (a client retrying with its Idempotency-Key for up to 90 s)',
    ok: gaveUp === 0,
    detail: `${gaveUp} given up`,
  });
  const fuzzBad = Object.entries(fuzzCauses).filter(([k]) => !k.endsWith('(Retry-After)'));
  const fuzzUnavailable = Object.entries(fuzzCauses).filter(([k]) => k.endsWith('(Retry-After)'));
  const causes = (list) =>
    list
      .sort((a, b) => b[1] - a[1])
      .slice(0, 6)
      .map(([k, v]) => `${k}: ${v}`)
      .join('; ');
  checks.push({
    name: `fuzzer: no 500/502/504, no 503 without Retry-After, every connection answered (${fuzzSent} requests)`,
    ok: fuzzBad.length === 0,
    detail: fuzzBad.length === 0 ? 'none' : causes(fuzzBad),
  });
  // With no fault running, a 503 (with Retry-After) means a dependency did not answer in time: on a
  // loaded machine Redis's 500 ms command timeout can. Shown, not failed: the rule holds (503, not 500).
  checks.push({
    name: 'fuzzer: no 503 at all once every service is ready',
    ok: true,
    warn: fuzzUnavailable.length > 0,
    detail: fuzzUnavailable.length === 0 ? 'none' : `${causes(fuzzUnavailable)} (see the gateways' logs: a dependency timed out)`,
  });
  checks.push({
    name: 'no service exited by itself (all stayed up through every fault)',
    ok: did.unexpectedExits.length === 0,
    detail: did.unexpectedExits.length ? did.unexpectedExits.map((e) => `${e.name} ${e.signal ?? `code ${e.code}`} at ${e.at}`).join('; ') : 'none',
  });
  const needles = [
    { label: 'a load email / property value (marker)', value: marker },
    { label: 'the event token', value: token },
    { label: 'the API key', value: apiKey },
    { label: "the fuzzer's event token", value: fuzzToken },
    { label: "the fuzzer's API key", value: fuzzKey },
    { label: "the burst's event token", value: burstToken },
    { label: "the burst's API key", value: burstKey },
    { label: "the hang account's event token", value: hangToken },
    { label: "the hang account's API key", value: hangKey },
    { label: 'a webhook signing secret', value: endpoint.secret },
    ...hangEndpoints.map((e) => ({ label: 'a webhook signing secret', value: e.secret })),
    { label: 'WEBHOOKS_SECRET_KEY', value: webhooksSecretKey },
    ...[...lookups.used].map((v) => ({ label: v.includes('@') ? 'a looked-up email' : 'a looked-up phone', value: v })),
  ];
  const logsCheck = logChecks({ logDir, needles });
  checks.push(logsCheck);
  checks.push(
    await kafkaPurgeCheck(
      stack.kafka.brokers,
      stack.kafka.nodes.map((n) => n.id),
    ),
  );
  checks.push(await redisPurgeCheck((await stack.redis.topology()).masters));

  const result = {
    mode: m.mode,
    seconds: Math.round((Date.now() - t0) / 1000),
    loadSeconds: Math.round(loadSeconds),
    events: {
      sent: events.sent(),
      acked: events.acked(),
      latencyMs: events.latency(),
      perSecond: Math.round(events.acked() / loadSeconds),
      outcomes: events.outcomes,
      inKafka: delivery.figures.inKafka,
      landedAfter503: delivery.figures.landedUnacked,
      repeatedCopies: delivery.figures.copies,
      enrollments: delivery.figures.enrollments,
    },
    lookups: { total: lookups.total(), outcomes: lookups.outcomes },
    collect: { sent: collects.sent(), acked: collects.ackedCount(), outcomes: collects.outcomes, ...visitorsResult.figures },
    webhooks: webhooksResult.figures,
    fuzzer: { sent: fuzzSent, statuses: fuzzStatuses },
    faults: did.faults,
    redis: redisResult.figures,
    checks: checks.map(({ name, ok, warn, detail }) => ({ name, ok, ...(warn ? { warn } : {}), detail })),
    failures: {
      events: events.failures.slice(0, 20),
      lookups: lookups.failures.slice(0, 20),
      collect: collects.failures.slice(0, 20),
      fuzzer: fuzzResults.flatMap((r) => r.failures).slice(0, 20),
      logs: logsCheck.found.slice(0, 10),
    },
    ok: checks.every((c) => c.ok),
  };
  console.log(table(result));
  if (opts.json) fs.writeFileSync(opts.json, JSON.stringify(result, null, 1));
  return result.ok ? 0 : 1;
}

/**
 * The Redis Cluster's checks. Failover: the replica promoted, the old master back as a replica, the
 * burst refused with 429 while the slot had no master (never more accepted than the limit per
 * second on that gateway), its events answered 200 in Kafka, recovery by itself. Raw copies: every
 * event accepted since the last all-nodes restart (the restart wipes every copy: no persistence) is
 * readable, or counted by the gateways as missed or dropped by its budget.
 */
function redisChecks({ failovers, restarts, inbound, burstAccountId, rawWindow, finalTotals, rawLoad, rawBurst, load, marker }) {
  const results = [];
  const check = (name, ok, detail) => results.push({ name, ok, detail });
  const tally = (list) => {
    const out = {};
    for (const a of list) {
      const k = a.status === null ? a.kind : a.status === 503 ? (a.retryAfter === null ? '503 without Retry-After' : '503') : String(a.status);
      out[k] = (out[k] ?? 0) + 1;
    }
    return out;
  };
  const burstInKafka = new Set(
    inbound.filter((r) => r.event.accountId === burstAccountId).map((r) => `${r.event.properties?.run}:${r.event.properties?.burst}`),
  );
  for (const [i, r] of restarts.entries()) {
    check(
      `Redis stopped${restarts.length > 1 ? ` (cycle ${i + 1})` : ''}: once the nodes are started again, every gateway uses Redis again by itself (/readyz redis ok, raw copies readable, within 60 s)`,
      r.gatewaysMs !== null,
      `cluster_state ok ${(r.clusterMs / 1000).toFixed(1)} s after the start; the gateways ${r.gatewaysMs === null ? `not within 60 s (${r.detail})` : `${(r.gatewaysMs / 1000).toFixed(1)} s after the start`}`,
    );
  }
  for (const f of failovers.filter((x) => x.error)) check(`Redis failover (cycle ${f.cycle}): made and finished`, false, f.error);
  const summaries = failovers
    .filter((f) => !f.error)
    .map((f) => {
      const during = f.burst.filter((a) => a.at < f.promotedAt);
      const after = f.burst.filter((a) => a.at >= f.promotedAt);
      const events = (list, status) => list.filter((a) => a.status === status).reduce((n, a) => n + (status === 200 ? a.accepted.length : a.size), 0);
      const acceptedIds = f.burst.flatMap((a) => a.accepted.map((i) => `c${f.cycle - 1}:${i}`));
      const ms = f.burst.map((a) => a.at - a.startedAt).sort((x, y) => x - y);
      const firstStart = Math.min(...f.burst.map((a) => a.startedAt));
      return {
        ...f,
        burstAnswers: f.burst,
        burst: {
          events: f.burst.reduce((n, a) => n + a.size, 0),
          batches: f.burst.length,
          batchSize: f.burst[0]?.size ?? 0,
          withoutMaster: tally(during),
          afterPromotion: tally(after),
          acceptedWithoutMaster: events(during, 200),
          refusedWithoutMaster: events(during, 429),
          acceptedAfter: events(after, 200),
          refusedAfter: events(after, 429),
          // Fixed one-second windows: what the limit lets through between the first send and the promotion.
          allowance: f.limit * (Math.ceil((f.promotedAt - firstStart) / 1000) + 1),
          latencyMs: { p50: ms[Math.floor(ms.length / 2)] ?? 0, max: ms.at(-1) ?? 0 },
          firstAt: firstStart - f.killedAt,
          accepted: acceptedIds,
          notInKafka: acceptedIds.filter((id) => !burstInKafka.has(id)),
          bad: f.burst.filter((a) => !(a.status === 200 || a.status === 429 || (a.status === 503 && a.retryAfter !== null))),
        },
      };
    });
  for (const f of summaries) {
    const label = `Redis failover${summaries.length > 1 ? ` (cycle ${f.cycle})` : ''}`;
    check(
      `${label}: the master of the load account's slot SIGKILLed, its replica promoted, the old master started again rejoins as a replica`,
      f.rejoined.role === 'replica',
      `${f.master} (pid ${f.killedPid}) killed; ${f.promoted} serves slot ${f.slot} ${(f.noMasterMs / 1000).toFixed(1)} s later; ${f.master} back as ${f.rejoined.role ?? `nothing (${f.rejoined.error})`}${f.rejoined.ms !== null ? ` in ${(f.rejoined.ms / 1000).toFixed(1)} s` : ''}`,
    );
    const b = f.burst;
    const acceptedAll = b.acceptedWithoutMaster + b.acceptedAfter;
    check(
      `${label}: limits keep limiting while the slot has no master (${BURST_FACTOR}x the events limit at once to one gateway, in batches: refused with 429 before the promotion, no more accepted than the limit per second)`,
      b.refusedWithoutMaster > 0 && acceptedAll <= b.allowance,
      `${b.events} events in ${b.batches} batches of ${b.batchSize} sent ${(b.firstAt / 1000).toFixed(1)} s after the kill, the slot without a master for ${(f.noMasterMs / 1000).toFixed(1)} s; answered before the promotion: ${b.acceptedWithoutMaster} events accepted, ${b.refusedWithoutMaster} refused with 429 (batches: ${
        Object.entries(b.withoutMaster)
          .map(([k, v]) => `${k}×${v}`)
          .join(' ') || 'none'
      }); answered after it: ${
        Object.entries(b.afterPromotion)
          .map(([k, v]) => `${k}×${v}`)
          .join(' ') || 'none'
      } (${b.acceptedAfter} events accepted, ${b.refusedAfter} refused); ${acceptedAll} accepted in all, the limit allows ${b.allowance} from the first send to the promotion; answers p50 ${b.latencyMs.p50} ms, max ${b.latencyMs.max} ms; gateway-1 decided ${f.localEventDecisions} requests on its own counts meanwhile`,
    );
    check(
      `${label}: the burst answered only 200, 429 or 503 with Retry-After; every burst event answered 200 is in Kafka`,
      f.burst.bad.length === 0 && f.burst.notInKafka.length === 0,
      `${f.burst.bad.length} other answers${f.burst.bad.length ? ` (e.g. ${f.burst.bad[0].status ?? f.burst.bad[0].kind} ${f.burst.bad[0].body ?? ''})` : ''}; ${f.burst.accepted.length} answered 200, ${f.burst.notInKafka.length} not in events.inbound`,
    );
    check(
      `${label}: it recovers by itself (raw copies readable again, /readyz 200 on both gateways, within 60 s of the promotion)`,
      f.recovery.rawMs !== null && f.recovery.readyMs !== null,
      `a copy received after the promotion readable after ${f.recovery.rawMs === null ? 'never' : `${(f.recovery.rawMs / 1000).toFixed(1)} s`}; /readyz 200 after ${f.recovery.readyMs === null ? 'never' : `${(f.recovery.readyMs / 1000).toFixed(1)} s`}`,
    );
  }

  // Raw copies since the last all-nodes restart.
  let rawCopies = null;
  if (!rawWindow) {
    check('raw copies: accepted = readable + missed + dropped', false, 'no all-nodes Redis restart was made (no window to count from)');
  } else if (rawLoad.error || rawBurst.error) {
    check('raw copies: accepted = readable + missed + dropped', false, `the raw copies could not be read: ${rawLoad.error ?? rawBurst.error}`);
  } else {
    const from = rawWindow.from;
    const readableSeqs = new Map();
    for (const e of rawLoad.items) {
      if (e.properties?.note !== `pv-${marker}` || e.properties?.seq === undefined) continue;
      readableSeqs.set(e.properties.seq, (readableSeqs.get(e.properties.seq) ?? 0) + 1);
    }
    const readableBurst = new Map();
    for (const e of rawBurst.items) {
      const id = e.properties?.warmup !== undefined ? `warmup:${e.properties.warmup}` : `${e.properties?.run}:${e.properties?.burst}`;
      readableBurst.set(id, (readableBurst.get(id) ?? 0) + 1);
    }
    const acked = [...load.events.values()].filter((e) => e.acked);
    const win = acked.filter((e) => e.firstAt >= from);
    const straddling = acked.filter((e) => e.firstAt < from && e.ackedAt >= rawWindow.stoppedAt);
    const burstWin = summaries.flatMap((f) => [
      ...(f.warmup.status === 200 && f.warmup.startedAt >= from ? [{ id: `warmup:${f.cycle - 1}`, at: f.warmup.at }] : []),
      ...f.burstAnswers.filter((a) => a.startedAt >= from).flatMap((a) => a.accepted.map((i) => ({ id: `c${f.cycle - 1}:${i}`, at: a.at }))),
    ]);
    const missing = [
      ...win.filter((e) => !readableSeqs.has(e.seq)).map((e) => ({ what: `seq ${e.seq}`, at: e.ackedAt })),
      ...burstWin.filter((b) => !readableBurst.has(b.id)).map((b) => ({ what: `burst ${b.id}`, at: b.at })),
    ];
    const accepted = win.length + burstWin.length;
    const readable = accepted - missing.length;
    const missed = finalTotals.missed - rawWindow.baseline.missed;
    const dropped = finalTotals.dropped - rawWindow.baseline.dropped;
    // Copies neither readable nor counted (lost without a word) when positive. A surplus (negative)
    // is counted but readable after all: a save that timed out at the gateway (500 ms) yet reached
    // Redis, or a count of an event accepted just before the window.
    const difference = accepted - readable - missed - dropped;
    const duplicates = [...readableSeqs.values(), ...readableBurst.values()].reduce((n, k) => n + (k - 1), 0);
    const dupSeqs = [...readableSeqs].filter(([, k]) => k > 1).map(([seq]) => load.events.get(seq));
    const unexplainedDups = dupSeqs.filter((e) => !e || e.attempts < 2).length;
    // Where the copies neither readable nor counted were accepted: around a failover, or elsewhere.
    const phase = (at) => {
      const f = summaries.find((x) => at >= x.killedAt - 2000 && at <= x.promotedAt + 2000);
      if (!f) return 'away from any failover';
      if (at < f.killedAt) return 'within 2 s before a master was killed';
      if (at <= f.promotedAt) return 'while the slot had no master';
      return 'within 2 s after the promotion';
    };
    const byPhase = {};
    for (const x of missing) byPhase[phase(x.at)] = (byPhase[phase(x.at)] ?? 0) + 1;
    rawCopies = {
      from: new Date(from).toISOString(),
      accepted,
      readable,
      missed,
      dropped,
      difference,
      duplicates,
      straddling: straddling.length,
      missedByReason: {
        redis_unavailable: finalTotals.missedRedisUnavailable - rawWindow.baseline.missedRedisUnavailable,
        memory_full: finalTotals.missedMemoryFull - rawWindow.baseline.missedMemoryFull,
      },
      notReadableByPhase: byPhase,
      notReadableSample: missing.slice(0, 10).map((x) => x.what),
      recentAnswerDropped: rawLoad.dropped,
    };
    check(
      'raw copies: every event accepted since the last all-nodes restart is readable, or counted as missed or dropped (accepted ≤ readable + missed + dropped, counters summed over every gateway process)',
      difference <= 0,
      `${accepted} accepted (${win.length} of the load, ${burstWin.length} of the burst account), ${readable} readable, ${missing.length} not${
        missing.length
          ? ` (${Object.entries(byPhase)
              .map(([k, v]) => `${v} ${k}`)
              .join(', ')}; e.g. ${rawCopies.notReadableSample.slice(0, 5).join(', ')})`
          : ''
      }; counted: ${missed} missed (${rawCopies.missedByReason.redis_unavailable} Redis unavailable, ${rawCopies.missedByReason.memory_full} memory full) + ${dropped} dropped by budget; ${difference > 0 ? `${difference} lost without being counted` : difference < 0 ? `${-difference} counted as missed although readable (a save timed out at the gateway but reached Redis) or accepted before the window` : 'exactly equal'}; ${straddling.length} events accepted between the stop and the window's start left out`,
    );
    check(
      'raw copies: no event has two readable copies, but one accepted again after a retry (Redis, where idempotency keys live, unreachable)',
      unexplainedDups === 0,
      `${duplicates} duplicate copies${duplicates ? ` (${dupSeqs.length} events, ${dupSeqs.length - unexplainedDups} of them retried)` : ''}`,
    );
  }
  return {
    results,
    figures: {
      failovers: summaries.map(({ burstAnswers: _, burst: { accepted, notInKafka, bad, ...burst }, ...f }) => ({
        ...f,
        burst: { ...burst, accepted: accepted.length, notInKafka: notInKafka.length, bad: bad.length },
      })),
      rawCopies,
      restarts,
      gatewayCounters: finalTotals,
    },
  };
}

function table(r) {
  const out = [];
  const row = (a, b) => out.push(`  ${String(a).padEnd(46)} ${b}`);
  out.push('', `npm run chaos — ${r.mode} mode, ${r.seconds} s (load ${r.loadSeconds} s)`, '', 'What it did');
  row(
    'topology',
    '3 Kafka brokers (RF 3, min ISR 2), 2 gateways, 3 playbook replicas (+1 joining), 2 enrichment, 2 visitors, 2 webhooks, private Postgres, a Redis Cluster (3 masters, 3 replicas)',
  );
  row(
    'events sent / answered 200',
    `${r.events.sent} / ${r.events.acked} (${r.events.perSecond}/s; answer 200 p50 ${r.events.latencyMs.p50} ms, p99 ${r.events.latencyMs.p99} ms)`,
  );
  for (const [k, v] of Object.entries(r.events.outcomes).sort()) row(`  events: ${k}`, v);
  row(
    'events in Kafka (distinct) / repeated copies',
    `${r.events.inKafka} / ${r.events.repeatedCopies} (landed although answered 503: ${r.events.landedAfter503})`,
  );
  row('enrollments compared', r.events.enrollments);
  row(
    'page views sent / answered 200',
    `${r.collect.sent} / ${r.collect.acked} (${r.collect.pageViews} distinct in Kafka, ${r.collect.copies} repeated copies, ${r.collect.visitors} visitors compared)`,
  );
  for (const [k, v] of Object.entries(r.collect.outcomes).sort()) row(`  collect: ${k}`, v);
  const w = r.webhooks;
  row(
    'webhook effects / received (signed, 204)',
    `${w.effects} / ${w.delivered} (${w.requests} requests: ${w.copies} repeated copies, ${w.refusedOnPurpose} answered 500 on purpose, ${w.badSignatures} bad signatures)`,
  );
  row('  hanging account', `${w.hanging.requests} requests, never answered, at most ${w.hanging.peakOpen} open at once`);
  row("  hanging account (service's record)", `${w.hanging.attempts} attempts recorded, at most ${w.hanging.peakRecorded} in flight at once`);
  row(
    '  healthy endpoint: due to first attempt',
    `p50 ${w.firstAttemptMs.p50} ms, p99 ${w.firstAttemptMs.p99} ms, max ${w.firstAttemptMs.max} ms; backlog for ${w.fairness.backlogSeconds} s outside faults, a slot free meanwhile for at most ${w.fairness.longestStarvedMs} ms at a time`,
  );
  row('lookups', r.lookups.total);
  for (const [k, v] of Object.entries(r.lookups.outcomes).sort()) row(`  lookups: ${k}`, v);
  row(
    'fuzzer requests',
    `${r.fuzzer.sent}: ${Object.entries(r.fuzzer.statuses)
      .sort()
      .map(([k, v]) => `${k}×${v}`)
      .join(' ')}`,
  );
  const counts = {};
  for (const f of r.faults) counts[f.what] = (counts[f.what] ?? 0) + 1;
  row('faults', r.faults.length);
  for (const [k, v] of Object.entries(counts)) row(`  ${k}`, v);
  for (const f of r.redis.failovers) {
    row(
      `Redis failover (cycle ${f.cycle})`,
      `${f.master} killed, ${f.promoted} promoted after ${(f.noMasterMs / 1000).toFixed(1)} s; old master back as ${f.rejoined.role ?? 'nothing'}${f.rejoined.ms !== null ? ` in ${(f.rejoined.ms / 1000).toFixed(1)} s` : ''}`,
    );
    row(
      '  burst while the slot had no master',
      `${f.burst.events} events in ${f.burst.batches} batches (limit ${f.limit}/s): ${f.burst.acceptedWithoutMaster} accepted, ${f.burst.refusedWithoutMaster} refused with 429 before the promotion; ${f.burst.acceptedAfter} accepted, ${f.burst.refusedAfter} refused after it`,
    );
    row(
      '  recovery after the promotion',
      `raw copies readable ${f.recovery.rawMs === null ? 'never' : `after ${(f.recovery.rawMs / 1000).toFixed(1)} s`}, /readyz 200 ${f.recovery.readyMs === null ? 'never' : `after ${(f.recovery.readyMs / 1000).toFixed(1)} s`}; copies missed during it ${f.missedDuringFailover}`,
    );
  }
  const rc = r.redis.rawCopies;
  if (rc)
    row(
      'raw copies since the last all-nodes restart',
      `${rc.accepted} accepted: ${rc.readable} readable, ${rc.accepted - rc.readable} not; counted ${rc.missed} missed + ${rc.dropped} dropped (difference ${rc.difference}); ${rc.duplicates} duplicate copies; ${rc.straddling} accepted during the restart left out`,
    );
  for (const x of r.redis.restarts)
    row(
      'Redis stopped: back in use by the gateways',
      `${x.gatewaysMs === null ? 'not within 60 s' : `${(x.gatewaysMs / 1000).toFixed(1)} s`} after the nodes were started (cluster_state ok after ${(x.clusterMs / 1000).toFixed(1)} s)`,
    );
  out.push('', 'What it found');
  for (const c of r.checks) out.push(`  ${c.ok ? (c.warn ? 'WARN' : 'PASS') : 'FAIL'}  ${c.name}`, `        ${c.detail}`);
  for (const [kind, list] of Object.entries(r.failures)) for (const f of list.slice(0, 5)) out.push(`  ${kind} failure: ${JSON.stringify(f).slice(0, 300)}`);
  out.push('', r.ok ? 'chaos: all checks passed' : 'chaos: SOME CHECKS FAILED', '');
  return out.join('\n');
}

main().then(
  (code) => process.exit(code),
  (err) => {
    log(`failed: ${err.stack || err.message}`);
    process.exit(2);
  },
);

/** Random per-caller internal tokens: INTERNAL_TOKEN is the gateway's; a webhooks service would be given WEBHOOKS_INTERNAL_TOKEN as its INTERNAL_TOKEN. */
function internalTokensEnvForRun() {
  const gateway = crypto.randomBytes(24).toString('hex');
  const webhooks = crypto.randomBytes(24).toString('hex');
  return { INTERNAL_TOKEN: gateway, WEBHOOKS_INTERNAL_TOKEN: webhooks, INTERNAL_TOKENS: `gateway=${gateway},webhooks=${webhooks}` };
}
