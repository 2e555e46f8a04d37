// The webhooks benchmark: what one delivery costs the webhooks service. The real service
// (services/webhooks/dist) runs against a real local HTTP receiver (in this process, answering 204);
// N playbook effects, each for a different person, are produced to playbook.effects; the service
// schedules one delivery per effect (Postgres), claims, signs and POSTs it, and records the attempt.
// Measured from the first effect produced to the last delivery recorded: the service's CPU (its
// idle CPU over the same window taken off) and its database's Postgres backends, per delivery.
'use strict';
const http = require('node:http');
const { randomUUID } = require('node:crypto');
const { round } = require('./lib/stats.js');
const { startChild, waitReady, sleep } = require('./lib/processes.js');
const { startGroupAtEnd } = require('./lib/kafka-lag.js');
const { processCpuSeconds } = require('./lib/cpu-usage.js');
const { databaseBackendPids } = require('./lib/pg-backends.js');
const suite = require('./lib/suite.js');

const description = 'webhooks service: ms CPU per delivery (service and its Postgres) for N effects delivered to a local receiver, and deliveries/s';

const BENCH_DB = suite.benchDatabaseName('webhooks');
const NUMERIC = {
  effects: [5000, 100, 200_000],
  'idle-seconds': [3, 1, 30],
  'drain-timeout': [300, 10, 1800],
};

const help = `Usage: npm run bench:webhooks [-- options]
       node scripts/bench.js webhooks [options]

${description}.
One run: infra up, build (webhooks), migrate the ${BENCH_DB} database, a local HTTP receiver (204 to
every POST), a new account with one endpoint subscribed to enrollment.started and enrollment.stopped,
one webhooks service (NODE_ENV=production, the SSRF guard on with loopback allowed, its own consumer
groups started at the topics' end). Then:
  1. idle      the service's CPU over --idle-seconds while nothing arrives (its pollers), per second
  2. deliver   --effects playbook effects (a new person each) produced to playbook.effects at once;
               waits until every delivery is recorded delivered and the receiver got every POST.
               CPU of the service over the window minus its idle rate × the window, and of the bench
               database's Postgres backends, per delivery; deliveries/s over the window
Writes bench/results/webhooks-<timestamp>.json, and bench/figures/webhooks.json for a valid run with
the defaults (scripts/capacity.js reads summary.cpuMsPerDelivery).

Options:
  --effects <n>         effects to deliver (default 5000)
  --idle-seconds <s>    idle window (default 3)
  --drain-timeout <s>   longest wait for the deliveries (default 300)
  --skip-build          do not build first
  --help                this text`;

function parseOptions(argv) {
  const { values, numbers } = suite.parseSuiteArgs(argv, { numeric: NUMERIC, options: { 'skip-build': { type: 'boolean', default: false } } });
  return { build: !values['skip-build'], ...numbers };
}

const { progress, out } = suite.suiteOutput('webhooks');

/** The receiver: 204 to every request, counting them and the distinct webhook-ids. */
async function startReceiver() {
  const seen = new Set();
  const state = { requests: 0, seen };
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      state.requests += 1;
      const id = req.headers['webhook-id'];
      if (id) seen.add(String(id));
      res.writeHead(204).end();
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(undefined)));
  const { port } = /** @type {import('node:net').AddressInfo} */ (server.address());
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    state,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve(undefined));
      }),
  };
}

async function waitUntil(probe, { timeoutMs, intervalMs = 100, what }) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(intervalMs);
  }
}

const cpuOf = (pids) => new Map(pids.map((p) => [p, processCpuSeconds(p) ?? 0]));
/** CPU seconds used since `before` by the processes in `after` (a process born meanwhile counts whole). */
const cpuSince = (before, after) => [...after].reduce((s, [pid, v]) => s + v - (before.get(pid) ?? 0), 0);

async function run(argv) {
  const begun = suite.beginRun('webhooks', argv, parseOptions);
  if (begun.exitCode !== undefined) return begun.exitCode;
  const { opts, env, startedAt, stamp, machine, problems, children, cleanups, result } = begun;
  const defaults = opts.effects === NUMERIC.effects[0] && opts['idle-seconds'] === NUMERIC['idle-seconds'][0];

  await suite.runPhases({ ...begun, progress, reportCleanupErrors: false }, async () => {
    const { databaseUrl, dbs, sql } = await suite.setUpInfraAndDatabase({
      env,
      name: BENCH_DB,
      poolSize: 2,
      buildFilters: ['@glimpse/webhooks', '@glimpse/auth'],
      doBuild: opts.build,
      progress,
      cleanups,
    });
    const { createAccount } = require('../shared/auth/dist/index.js');
    const { TOPICS, personKey } = require('../shared/messaging/dist/index.js');
    const { Kafka, Partitioners, logLevel } = require('kafkajs');
    const kafka = new Kafka({ clientId: 'glimpse-bench-webhooks', brokers: env.kafkaBrokers, logLevel: logLevel.NOTHING });
    const producer = kafka.producer({ createPartitioner: Partitioners.DefaultPartitioner, allowAutoTopicCreation: false });
    await producer.connect();
    cleanups.push(() => producer.disconnect());
    const receiver = await startReceiver();
    cleanups.push(() => receiver.close());

    result.params = {
      effects: opts.effects,
      idleSeconds: opts['idle-seconds'],
      database: BENCH_DB,
      defaults,
      concurrency: 'service default',
      receiver: 'local HTTP, 204, in the bench process',
    };
    suite.printHeader(out, 'Glimpse webhooks benchmark', machine, result.params);

    // The service's groups start at the topics' end: nothing earlier runs or tests left is delivered.
    const groups = {
      WEBHOOKS_GROUP_ID: `glimpse-webhooks-bench-${stamp}`,
      WEBHOOKS_IDENTIFIED_GROUP_ID: `glimpse-webhooks-identified-bench-${stamp}`,
      WEBHOOKS_COMPANIES_GROUP_ID: `glimpse-webhooks-companies-bench-${stamp}`,
      WEBHOOKS_ACCOUNTS_GROUP_ID: `glimpse-webhooks-accounts-bench-${stamp}`,
    };
    await startGroupAtEnd({ brokers: env.kafkaBrokers, groupId: groups.WEBHOOKS_GROUP_ID, topic: TOPICS.playbookEffects });
    await startGroupAtEnd({ brokers: env.kafkaBrokers, groupId: groups.WEBHOOKS_IDENTIFIED_GROUP_ID, topic: TOPICS.visitorsIdentified });
    await startGroupAtEnd({ brokers: env.kafkaBrokers, groupId: groups.WEBHOOKS_COMPANIES_GROUP_ID, topic: TOPICS.visitorsCompanies });

    const [port] = await suite.freePorts(1);
    const base = suite.serviceEnvBase(databaseUrl);
    const serviceEnv = {
      ...suite.asService({ ...base, ...suite.infraEnv(env) }, 'webhooks'),
      ...groups,
      WEBHOOKS_PORT: String(port),
      WEBHOOKS_BLOCK_PRIVATE_TARGETS: 'true',
      WEBHOOKS_ALLOW_LOOPBACK: 'true',
      // Production refuses the development key of the endpoints' secrets.
      WEBHOOKS_SECRET_KEY: require('node:crypto').randomBytes(32).toString('hex'),
    };
    children.webhooks = startChild({ name: 'webhooks', script: 'services/webhooks/dist/main.js', env: serviceEnv });
    await waitReady(children.webhooks, `${suite.urlOf(port)}/readyz`, 120_000);
    const pid = children.webhooks.pid;

    const account = await createAccount(dbs.identity, `bench webhooks ${randomUUID()}`);
    const res = await fetch(`${suite.urlOf(port)}/internal/webhooks`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-glimpse-internal-token': base.INTERNAL_TOKEN, 'x-glimpse-account-id': account.id },
      body: JSON.stringify({ url: receiver.url, events: ['enrollment.started', 'enrollment.stopped'] }),
    });
    if (res.status !== 201) throw new Error(`creating the endpoint: ${res.status} ${await res.text()}`);
    const endpoint = /** @type {{ id: string }} */ (await res.json());

    // Phase 1: idle.
    progress(`idle: ${opts['idle-seconds']} s`);
    await sleep(1000);
    const idle0 = processCpuSeconds(pid) ?? 0;
    const idleT0 = performance.now();
    await sleep(opts['idle-seconds'] * 1000);
    const idleCpuPerSec = ((processCpuSeconds(pid) ?? 0) - idle0) / ((performance.now() - idleT0) / 1000);
    result.idle = { cpuPctOfCore: round(idleCpuPerSec * 100, 2) };
    out(`idle     the service used ${round(idleCpuPerSec * 100, 2)} % of a core doing nothing (its pollers)`);

    // Phase 2: deliver.
    progress(`deliver: ${opts.effects} effects`);
    const playbookId = randomUUID();
    const messages = [];
    for (let i = 0; i < opts.effects; i++) {
      const email = `w${i}.${account.id.slice(0, 8)}@bench.example`;
      const at = new Date().toISOString();
      const effect = {
        effectId: randomUUID(),
        eventId: randomUUID(),
        accountId: account.id,
        playbookId,
        email,
        action: i % 5 === 4 ? 'stopped' : 'started',
        at,
      };
      messages.push({ key: personKey(account.id, email), value: JSON.stringify(effect) });
    }
    const pg0 = cpuOf(await databaseBackendPids(sql, BENCH_DB));
    const cpu0 = processCpuSeconds(pid) ?? 0;
    const t0 = performance.now();
    for (let i = 0; i < messages.length; i += 2000) await producer.send({ topic: TOPICS.playbookEffects, acks: -1, messages: messages.slice(i, i + 2000) });
    const producedSec = (performance.now() - t0) / 1000;
    await waitUntil(
      async () => {
        const {
          rows: [r],
        } = await sql.query("SELECT count(*) AS delivered FROM webhook_deliveries WHERE endpoint_id = $1 AND status = 'delivered'", [endpoint.id]);
        return Number(r.delivered) >= opts.effects;
      },
      { timeoutMs: opts['drain-timeout'] * 1000, intervalMs: 50, what: `${opts.effects} deliveries recorded delivered` },
    );
    const wallSec = (performance.now() - t0) / 1000;
    const cpuSec = (processCpuSeconds(pid) ?? 0) - cpu0;
    const pgSec = cpuSince(pg0, cpuOf(await databaseBackendPids(sql, BENCH_DB)));
    const netSec = Math.max(0, cpuSec - idleCpuPerSec * wallSec);
    const received = receiver.state.requests;
    const distinct = receiver.state.seen.size;
    if (distinct !== opts.effects)
      problems.push(`deliver: the receiver got ${distinct} distinct deliveries (${received} requests) for ${opts.effects} effects`);
    const perDelivery = { webhooks: round((netSec * 1000) / opts.effects, 3), postgres: round((pgSec * 1000) / opts.effects, 3) };
    result.deliver = {
      effects: opts.effects,
      producedSec: round(producedSec, 2),
      seconds: round(wallSec, 2),
      deliveriesPerSec: Math.round(opts.effects / wallSec),
      received,
      distinctReceived: distinct,
      cpuSec: { webhooksGross: round(cpuSec, 3), webhooksIdleOverWindow: round(idleCpuPerSec * wallSec, 3), postgres: round(pgSec, 3) },
      cpuMsPerDelivery: perDelivery,
    };
    out(
      `deliver  ${opts.effects} effects → ${distinct} deliveries received in ${round(wallSec, 2)} s (${result.deliver.deliveriesPerSec}/s; produced in ${round(producedSec, 2)} s)`,
    );
    out(
      `cpu      per delivery: webhooks service ${perDelivery.webhooks} ms (gross ${round((cpuSec * 1000) / opts.effects, 3)} ms, idle taken off) + its Postgres ${perDelivery.postgres} ms`,
    );
  });

  suite.closeResult(result, undefined, problems);
  const fields = {
    params: result.params,
    idle: result.idle,
    deliver: result.deliver,
    // scripts/capacity.js reads this.
    cpuMsPerDelivery: result.deliver?.cpuMsPerDelivery,
  };
  suite.writeAndPrintSummary({ result, fields, startedAt, problems, out, targetsLine: undefined, latest: defaults });
  return problems.length ? 1 : 0;
}

module.exports = { description, help, run };
