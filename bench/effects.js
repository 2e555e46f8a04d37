// The effects benchmark: how fast the playbook consumer applies events. Drains of a
// backlog with 1, 2 and 3 replicas in one group (one event name / 50 names and 50 playbooks), CPU
// per applied event of the playbook processes and of Postgres, Postgres lock waits sampled during
// each drain; then the gateway's saturated accept rate and a paced run through the gateway with the
// consumer running: 200 → effect latency and the lag at the end. Runs the built services (dist/).
'use strict';
const { randomUUID } = require('node:crypto');
const { summarize, round } = require('./lib/stats.js');
const { saturate } = require('./lib/load.js');
const { openLoop } = require('./lib/open-loop.js');
const { startChild, waitReady, stopChild, sleep } = require('./lib/processes.js');
const { createLagProbe, startGroupAtEnd } = require('./lib/kafka-lag.js');
const { processCpuSeconds } = require('./lib/cpu-usage.js');
const { databaseBackendPids } = require('./lib/pg-backends.js');
const suite = require('./lib/suite.js');

const description =
  'playbook consumer: backlog drains with 1/2/3 replicas (events/s, ms CPU per event, lock waits), and a paced run through the gateway (200 → effect, lag)';

const BENCH_DB = suite.benchDatabaseName('effects');
const TARGETS = { minDrainPerSec: 3000, maxCpuMsPerEvent: 0.5, maxPacedP99Ms: 250, maxLagZeroMs: 2000, minDrainToAccept: 2 };

const NUMERIC = {
  ...suite.SATURATION_NUMERIC,
  events: [50_000, 1000, 1_000_000],
  replicas: [3, 1, 12],
  'paced-rate': [1000, 1, 10_000],
  'paced-seconds': [60, 0, 600],
  'drain-timeout': [300, 10, 1800],
  concurrency: [null, 1, 64],
  'max-batch': [null, 1, 10_000],
};

const help = `Usage: npm run bench:effects [-- options]
       node scripts/bench.js effects [options]

${description}.
One run: infra up, build (gateway, playbook), migrate the ${BENCH_DB} database. Then:
  1. drains   for R in 1..--replicas and for 1 name / 50 names: a new account and group, --events
              events (each a new email; every event starts an enrollment) written to events.inbound
              while no consumer runs, then R playbook services started together; the drain rate is
              events / (last − first processed_at); CPU from ready to drained of the playbook
              processes and of the bench database's Postgres backends, per event applied meanwhile;
              pg_stat_activity sampled every 50 ms for backends waiting on a lock
  2. accept   POST /events saturated (no consumer running; --warmup + --duration s, --connections)
  3. paced    --paced-rate events/s for --paced-seconds s through the gateway, one playbook service
              running: 200 → enrollments.started_at p50/p99, and how long after the last 200 the lag is 0
Targets: drain ≥ ${TARGETS.minDrainPerSec}/s with 1 replica; 3 replicas never slower than 1; playbook + Postgres
≤ ${TARGETS.maxCpuMsPerEvent} ms CPU per event; paced p99 < ${TARGETS.maxPacedP99Ms} ms and lag 0 within ${TARGETS.maxLagZeroMs} ms; drain / accept ≥ ${TARGETS.minDrainToAccept}.
Writes bench/results/effects-<timestamp>.json, and bench/figures/effects.json for a valid run with the defaults.

Options:
  --events <n>          events per drain (default 50000)
  --replicas <n>        drains with 1..n replicas (default 3)
  --paced-rate <n>      paced events per second (default 1000)
  --paced-seconds <s>   paced run length, 0 to skip (default 60)
  --duration <s>, --warmup <s>, --connections <n>   the accept-rate run (defaults 10, 2, 50)
  --drain-timeout <s>   longest wait for one drain (default 300)
  --concurrency <n>     PLAYBOOK_CONCURRENCY of the replicas (default: the service's)
  --max-batch <n>       PLAYBOOK_MAX_BATCH of the replicas (default: the service's)
  --drains-only         only phase 1
  --skip-build          do not build first
  --check-targets       exit 1 when a target is missed
  --help                this text`;

function parseOptions(argv) {
  const { values, numbers } = suite.parseSuiteArgs(argv, {
    numeric: NUMERIC,
    options: {
      'skip-build': { type: 'boolean', default: false },
      'check-targets': { type: 'boolean', default: false },
      'drains-only': { type: 'boolean', default: false },
    },
  });
  return { build: !values['skip-build'], checkTargets: values['check-targets'], drainsOnly: values['drains-only'], ...numbers };
}

const { progress, out } = suite.suiteOutput('effects');

async function waitUntil(probe, { timeoutMs, intervalMs = 100, what }) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(intervalMs);
  }
}

/** CPU seconds per pid now. */
const cpuOf = (pids) => new Map(pids.map((p) => [p, processCpuSeconds(p) ?? 0]));
/** CPU seconds used since `before` by the processes in `after` (a process born meanwhile counts whole). */
const cpuSince = (before, after) => [...after].reduce((s, [pid, v]) => s + v - (before.get(pid) ?? 0), 0);

/** Samples pg_stat_activity of the bench database every `everyMs` until stopped: backends waiting on a lock. */
function lockSampler(sql, datname, everyMs = 50) {
  let on = true;
  const s = { samples: 0, active: 0, lockWaiting: 0, samplesWithLockWait: 0, maxLockWaiting: 0, byEvent: {} };
  const done = (async () => {
    while (on) {
      try {
        const { rows } = await sql.query(
          "SELECT wait_event_type, wait_event FROM pg_stat_activity WHERE datname = $1 AND state = 'active' AND backend_type = 'client backend' AND pid <> pg_backend_pid()",
          [datname],
        );
        s.samples += 1;
        s.active += rows.length;
        const waiting = rows.filter((r) => r.wait_event_type === 'Lock');
        s.lockWaiting += waiting.length;
        if (waiting.length > 0) s.samplesWithLockWait += 1;
        s.maxLockWaiting = Math.max(s.maxLockWaiting, waiting.length);
        for (const r of waiting) s.byEvent[r.wait_event] = (s.byEvent[r.wait_event] ?? 0) + 1;
      } catch {
        return; // the run failed and closed the client
      }
      await sleep(everyMs);
    }
  })();
  return async () => {
    on = false;
    await done;
    return { ...s, lockWaitShareOfActive: s.active ? round(s.lockWaiting / s.active, 3) : 0, meanActive: s.samples ? round(s.active / s.samples, 2) : 0 };
  };
}

async function run(argv) {
  const begun = suite.beginRun('effects', argv, parseOptions);
  if (begun.exitCode !== undefined) return begun.exitCode;
  const { opts, env, startedAt, stamp, machine, problems, children, cleanups, result } = begun;
  const defaults =
    !opts.drainsOnly &&
    opts.concurrency === null &&
    opts['max-batch'] === null &&
    opts.events === NUMERIC.events[0] &&
    opts.replicas === NUMERIC.replicas[0] &&
    opts['paced-seconds'] === NUMERIC['paced-seconds'][0] &&
    opts['paced-rate'] === NUMERIC['paced-rate'][0];

  await suite.runPhases({ ...begun, progress, reportCleanupErrors: false }, async () => {
    const { databaseUrl, dbs, sql } = await suite.setUpInfraAndDatabase({
      env,
      name: BENCH_DB,
      poolSize: 2,
      buildFilters: ['@glimpse/gateway', '@glimpse/playbook'],
      doBuild: opts.build,
      progress,
      cleanups,
    });
    const { createAccount, createEventToken } = require('../shared/auth/dist/index.js');
    const { createPlaybook } = require('../services/playbook/dist/index.js');
    const { TOPICS, personKey } = require('../shared/messaging/dist/index.js');
    const { Kafka, Partitioners, logLevel } = require('kafkajs');
    const kafka = new Kafka({ clientId: 'glimpse-bench-effects', brokers: env.kafkaBrokers, logLevel: logLevel.NOTHING });
    const producer = kafka.producer({ createPartitioner: Partitioners.DefaultPartitioner, allowAutoTopicCreation: false });
    await producer.connect();
    cleanups.push(() => producer.disconnect());
    const serviceEnv = {
      ...suite.serviceEnvBase(databaseUrl),
      ...suite.infraEnv(env),
      // Production refuses the development erasure key.
      PLAYBOOK_ERASURE_KEY: require('node:crypto').randomBytes(32).toString('hex'),
      ...(opts.concurrency !== null ? { PLAYBOOK_CONCURRENCY: String(opts.concurrency) } : {}),
      ...(opts['max-batch'] !== null ? { PLAYBOOK_MAX_BATCH: String(opts['max-batch']) } : {}),
    };

    result.params = {
      concurrency: opts.concurrency ?? 'service default',
      maxBatch: opts['max-batch'] ?? 'service default',
      events: opts.events,
      replicas: opts.replicas,
      pacedRatePerSec: opts['paced-rate'],
      pacedSeconds: opts['paced-seconds'],
      acceptDurationSec: opts.duration,
      connections: opts.connections,
      database: BENCH_DB,
      defaults,
    };
    suite.printHeader(out, 'Glimpse effects benchmark', machine, result.params);

    /** A new account whose names are in the catalog, with one playbook per name triggered by it. */
    async function accountWithPlaybooks(names) {
      const account = await createAccount(dbs.identity, `bench effects ${randomUUID()}`);
      await sql.query('INSERT INTO event_names (account_id, name, first_seen_at, last_seen_at, count) SELECT $1, unnest($2::text[]), now(), now(), 1', [
        account.id,
        names,
      ]);
      for (const name of names) await createPlaybook(dbs.playbook, { accountId: account.id, name: `bench ${name}`, triggers: [name] });
      return account;
    }

    async function writeBacklog(accountId, names, count) {
      const receivedAt = new Date().toISOString();
      for (let i = 0; i < count; i += 5000) {
        const messages = [];
        for (let j = i; j < Math.min(count, i + 5000); j++) {
          const email = `d${j}.${accountId.slice(0, 8)}@bench.example`;
          const event = { eventId: randomUUID(), accountId, event: names[j % names.length], email, properties: { plan: 'pro' }, receivedAt };
          messages.push({ key: personKey(accountId, email), value: JSON.stringify(event) });
        }
        await producer.send({ topic: TOPICS.eventsInbound, acks: -1, messages });
      }
    }

    async function startPlaybooks(n, groupId, tag) {
      const ports = await suite.freePorts(n);
      const started = ports.map((port, i) => {
        const name = `${tag}-${i + 1}`;
        children[name] = startChild({
          name,
          script: 'services/playbook/dist/main.js',
          env: { ...suite.asService(serviceEnv, 'playbook'), PLAYBOOK_PORT: String(port), PLAYBOOK_GROUP_ID: groupId },
        });
        return { name, child: children[name], url: `${suite.urlOf(port)}/readyz` };
      });
      // A loaded machine can take a while to start several Node processes at once.
      await Promise.all(started.map((s) => waitReady(s.child, s.url, 120_000)));
      return started;
    }
    async function stopPlaybooks(started) {
      for (const s of started) {
        const exit = await stopChild(s.child);
        delete children[s.name];
        if (!exit.graceful) problems.push(`${s.name} did not shut down cleanly: ${JSON.stringify(exit)}`);
      }
    }

    // What one replica spends starting and idling until ready (+1 s), taken off the drains' CPU.
    progress('an idle replica: its start-up CPU');
    const idleGroup = `glimpse-playbook-bench-effects-${stamp}-idle`;
    await startGroupAtEnd({ brokers: env.kafkaBrokers, groupId: idleGroup, topic: TOPICS.eventsInbound });
    const [idle] = await startPlaybooks(1, idleGroup, 'idle-playbook');
    await sleep(1000);
    const startupCpu = processCpuSeconds(idle.child.pid) ?? 0;
    await stopPlaybooks([idle]);
    out(`start-up an idle replica used ${round(startupCpu, 2)} s CPU to be ready (+1 s); taken off each drain's replicas`);

    // Phase 1: drains.
    const drains = [];
    result.drains = drains;
    for (const nameCount of [1, 50]) {
      for (let replicas = 1; replicas <= opts.replicas; replicas++) {
        const label = `${replicas} replica${replicas > 1 ? 's' : ''}, ${nameCount} name${nameCount > 1 ? 's' : ''}`;
        progress(`drain: ${label}, ${opts.events} events`);
        const names = Array.from({ length: nameCount }, (_, i) => `bench_n${i}`);
        const account = await accountWithPlaybooks(names);
        const groupId = `glimpse-playbook-bench-effects-${stamp}-${replicas}-${nameCount}`;
        await startGroupAtEnd({ brokers: env.kafkaBrokers, groupId, topic: TOPICS.eventsInbound });
        await writeBacklog(account.id, names, opts.events);
        // CPU of the replicas over their whole life minus what an idle replica spends starting
        // (measured once, below); the database's backends from before the start.
        const pg0 = cpuOf(await databaseBackendPids(sql, BENCH_DB));
        const stopSampling = lockSampler(sql, BENCH_DB);
        const started = await startPlaybooks(replicas, groupId, 'playbook');
        const pids = started.map((s) => s.child.pid);
        // Drained: the moment (the database's clock) the last event's commit is visible.
        const doneAt = await waitUntil(
          async () => {
            const {
              rows: [r],
            } = await sql.query('SELECT count(*) AS n, clock_timestamp() AS at FROM processed_events WHERE account_id = $1', [account.id]);
            return Number(r.n) >= opts.events && r.at;
          },
          { timeoutMs: opts['drain-timeout'] * 1000, intervalMs: 20, what: `${label}: ${opts.events} events applied` },
        );
        const locks = await stopSampling();
        const playbookCpu = Math.max(0, cpuSince(new Map(), cpuOf(pids)) - replicas * startupCpu);
        const postgresCpu = cpuSince(pg0, cpuOf(await databaseBackendPids(sql, BENCH_DB)));
        // From the first transaction's start to the last commit seen.
        const {
          rows: [w],
        } = await sql.query('SELECT extract(epoch FROM $2::timestamptz - min(processed_at)) AS s FROM processed_events WHERE account_id = $1', [
          account.id,
          doneAt,
        ]);
        const enrolled = Number((await sql.query('SELECT count(*) AS n FROM enrollments WHERE account_id = $1', [account.id])).rows[0].n);
        await stopPlaybooks(started);
        if (enrolled !== opts.events) problems.push(`${label}: ${enrolled} enrollments for ${opts.events} events`);
        const measured = opts.events;
        const d = {
          replicas,
          names: nameCount,
          events: opts.events,
          seconds: round(Number(w.s), 2),
          eventsPerSec: Math.round(opts.events / Number(w.s)),
          startupCpuSecPerReplica: round(startupCpu, 3),
          cpuMsPerEvent: { playbook: round((playbookCpu * 1000) / measured, 3), postgres: round((postgresCpu * 1000) / measured, 3) },
          locks,
        };
        drains.push(d);
        out(
          `drain    ${label.padEnd(22)} ${String(d.eventsPerSec).padStart(6)} events/s (${d.seconds} s)   CPU/event playbook ${d.cpuMsPerEvent.playbook} ms + Postgres ${d.cpuMsPerEvent.postgres} ms   lock waits: ${locks.lockWaiting} waiting backend-samples of ${locks.active} active (${locks.samples} samples, max ${locks.maxLockWaiting} at once${Object.keys(locks.byEvent).length ? `; ${JSON.stringify(locks.byEvent)}` : ''})`,
        );
      }
    }
    result.drains = drains;
    if (opts.drainsOnly) return;

    // Phase 2: the gateway's saturated accept rate (no consumer running).
    const account = await accountWithPlaybooks(['bench_paced']);
    const token = await createEventToken(dbs.identity, account.id);
    const [gatewayPort] = await suite.freePorts(1);
    const gatewayUrl = suite.urlOf(gatewayPort);
    children.gateway = startChild({
      name: 'gateway',
      script: 'services/gateway/dist/main.js',
      env: { ...suite.asService(serviceEnv, 'gateway'), PORT: String(gatewayPort), EVENTS_RATE_LIMIT_PER_SECOND: String(1_000_000_000) },
    });
    await waitReady(children.gateway, `${gatewayUrl}/readyz`, 120_000);
    const headers = { 'content-type': 'application/json', authorization: `Bearer ${token.secret}` };
    let n = 0;
    const nextBody = (prefix) => () => {
      n += 1;
      const email = `${prefix}${n}@bench.example`;
      return { body: JSON.stringify({ event: 'bench_paced', email, properties: { plan: 'pro' } }), meta: { email } };
    };
    progress(`accept: POST /events saturated (${opts.warmup} + ${opts.duration} s, ${opts.connections} connections), no consumer`);
    const accept = await saturate({
      url: `${gatewayUrl}/events`,
      headers,
      connections: opts.connections,
      durationSec: opts.duration,
      warmupSec: opts.warmup,
      nextBody: nextBody('a'),
    });
    suite.flagFailedRuns([['accept', accept]], problems, out);
    result.accept = { rps: accept.measured.reqPerSec, p50: accept.measured.latencyMs.p50, p99: accept.measured.latencyMs.p99 };
    out(
      `accept   POST /events saturated: ${accept.measured.reqPerSec} req/s, p50 ${accept.measured.latencyMs.p50} ms, p99 ${accept.measured.latencyMs.p99} ms`,
    );

    // Phase 3: paced through the gateway, one consumer running (its group starts after the accept run's events).
    if (opts['paced-seconds'] > 0) {
      const groupId = `glimpse-playbook-bench-effects-${stamp}-paced`;
      await startGroupAtEnd({ brokers: env.kafkaBrokers, groupId, topic: TOPICS.eventsInbound });
      const started = await startPlaybooks(1, groupId, 'paced-playbook');
      const lag = createLagProbe({ brokers: env.kafkaBrokers, groupId, topic: TOPICS.eventsInbound });
      cleanups.push(() => lag.close());
      const count = opts['paced-rate'] * opts['paced-seconds'];
      progress(`paced: ${count} events at ${opts['paced-rate']}/s through the gateway`);
      const pacedFrom = new Date(Date.now() - 1000);
      const sent = await openLoop({ url: `${gatewayUrl}/events`, headers, count, ratePerSec: opts['paced-rate'], nextBody: nextBody('p') });
      const lastOk = Math.max(...sent.map((s) => s.doneAt));
      const zeroAt = await waitUntil(async () => ((await lag.lag()) === 0 ? Date.now() : false), {
        timeoutMs: 120_000,
        intervalMs: 50,
        what: 'the lag to reach 0 after the paced run',
      });
      const ok = sent.filter((s) => s.status === 200);
      await waitUntil(
        async () =>
          Number((await sql.query('SELECT count(*) AS n FROM enrollments WHERE account_id = $1 AND started_at >= $2', [account.id, pacedFrom])).rows[0].n) >=
          ok.length,
        { timeoutMs: 60_000, intervalMs: 200, what: 'the paced enrollments' },
      ).catch((err) => problems.push(err.message));
      const { rows } = await sql.query('SELECT email, started_at FROM enrollments WHERE account_id = $1 AND started_at >= $2', [account.id, pacedFrom]);
      const startedAt2 = new Map(rows.map((r) => [r.email, r.started_at.getTime()]));
      const e2e = summarize(ok.filter((s) => startedAt2.has(s.meta.email)).map((s) => startedAt2.get(s.meta.email) - s.doneAt));
      const missing = ok.filter((s) => !startedAt2.has(s.meta.email)).length;
      if (ok.length !== sent.length) problems.push(`paced: ${sent.length - ok.length} of ${sent.length} not answered 200`);
      if (missing) problems.push(`paced: ${missing} accepted events without an enrollment`);
      result.paced = {
        sent: sent.length,
        ok: ok.length,
        achievedPerSec: Math.round(sent.length / ((lastOk - sent[0].sentAt) / 1000)),
        httpMs: summarize(sent.map((s) => s.latencyMs)),
        e2eMs: e2e,
        lagZeroAfterMs: Math.max(0, zeroAt - lastOk),
        missing,
      };
      out(
        `paced    ${ok.length}/${sent.length} answered 200 at ${result.paced.achievedPerSec}/s; 200 → effect p50 ${round(e2e.p50)} ms, p99 ${round(e2e.p99)} ms, max ${round(e2e.max)} ms; lag 0 ${result.paced.lagZeroAfterMs} ms after the last answer`,
      );
      await stopPlaybooks(started);
    }
  });

  // Targets and summary.
  const drains = result.drains ?? [];
  const d = (r, names) => drains.find((x) => x.replicas === r && x.names === names);
  const one = d(1, 1);
  const worstCpu = drains.length ? Math.max(...drains.map((x) => x.cpuMsPerEvent.playbook + x.cpuMsPerEvent.postgres)) : null;
  const maxR = opts.replicas;
  const targets = one && {
    drain1: { target: `>= ${TARGETS.minDrainPerSec}/s`, actual: one.eventsPerSec, met: one.eventsPerSec >= TARGETS.minDrainPerSec },
    moreReplicasNotSlower: {
      target: `${maxR} replicas >= 1 replica (each name count)`,
      actual: [1, 50].map((nm) => `${nm} name(s): ${d(1, nm)?.eventsPerSec} → ${d(maxR, nm)?.eventsPerSec}`).join('; '),
      met: [1, 50].every((nm) => d(1, nm) && d(maxR, nm) && d(maxR, nm).eventsPerSec >= d(1, nm).eventsPerSec),
    },
    cpuPerEvent: {
      target: `<= ${TARGETS.maxCpuMsPerEvent} ms (playbook + Postgres, worst drain)`,
      actual: round(worstCpu, 3),
      met: worstCpu <= TARGETS.maxCpuMsPerEvent,
    },
    ...(result.paced && {
      pacedP99: { target: `< ${TARGETS.maxPacedP99Ms} ms`, actual: round(result.paced.e2eMs.p99), met: result.paced.e2eMs.p99 < TARGETS.maxPacedP99Ms },
      lagZero: {
        target: `<= ${TARGETS.maxLagZeroMs} ms after the end`,
        actual: result.paced.lagZeroAfterMs,
        met: result.paced.lagZeroAfterMs <= TARGETS.maxLagZeroMs,
      },
    }),
    ...(result.accept && {
      drainToAccept: {
        target: `>= ${TARGETS.minDrainToAccept}`,
        actual: round(one.eventsPerSec / result.accept.rps, 2),
        met: one.eventsPerSec / result.accept.rps >= TARGETS.minDrainToAccept,
      },
    }),
  };
  suite.closeResult(result, targets, problems);
  const mean = (k) => (drains.length ? round(drains.reduce((s, x) => s + x.cpuMsPerEvent[k], 0) / drains.length, 3) : null);
  const fields = {
    params: result.params,
    drains: drains.map((x) => ({
      replicas: x.replicas,
      names: x.names,
      eventsPerSec: x.eventsPerSec,
      cpuMsPerEvent: x.cpuMsPerEvent,
      lockWaitingSamples: x.locks.lockWaiting,
      activeSamples: x.locks.active,
    })),
    // scripts/capacity.js reads this: the mean over the drains.
    cpuMsPerAppliedEvent: { playbook: mean('playbook'), postgres: mean('postgres') },
    accept: result.accept,
    paced: result.paced && {
      sent: result.paced.sent,
      ok: result.paced.ok,
      p50: round(result.paced.e2eMs.p50),
      p99: round(result.paced.e2eMs.p99),
      lagZeroAfterMs: result.paced.lagZeroAfterMs,
    },
    drainToAccept: targets?.drainToAccept?.actual,
    targetsMet: targets && Object.fromEntries(Object.entries(targets).map(([k, v]) => [k, v.met])),
  };
  suite.writeAndPrintSummary({
    result,
    fields,
    startedAt,
    problems,
    out,
    latest: defaults, // a shortened run never replaces bench/figures/effects.json
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
