// The events benchmark: POST /events on the real gateway (Kafka acks=all, Redis, auth) against a
// bare express endpoint on the same machine, and the latency from a 200 to its effect in Postgres
// (the playbook service starts an enrollment for every event). Runs the built services (dist/).
'use strict';
const crypto = require('node:crypto');
const path = require('node:path');
const { summarize, round } = require('./lib/stats.js');
const { saturate, paced } = require('./lib/load.js');
const { startChild, waitReady, stopChild, sleep } = require('./lib/processes.js');
const { createLagProbe, startGroupAtEnd } = require('./lib/kafka-lag.js');
const { RESULTS_DIR } = require('./lib/results.js');
const { startCpuMeter, infraPids } = require('./lib/cpu-usage.js');
const { writeFlameGraph } = require('./lib/flamegraph.js');
const { measureRawBytes } = require('./lib/raw-bytes.js');
const suite = require('./lib/suite.js');

const description = 'POST /events vs a bare express endpoint (req/s, p50/p99), and 200 → effect-in-Postgres latency';

const BENCH_DB = suite.benchDatabaseName('events');
// A new group per run, committed at the topic's end: the shared events.inbound holds whatever tests
// and earlier runs left, and replaying it would measure that instead.
const GROUP_PREFIX = 'glimpse-playbook-bench';
const EVENT_NAME = 'bench_signup';
const TARGETS = { minThroughputRatio: 0.5, maxP99Ms: 50 };
/** Gateway CPU per accepted event (the targets of a lighter edge), single and in batches of --batch-size. */
const CPU_TARGETS = { maxMsPerEvent: 0.4, maxMsPerBatchedEvent: 0.08 };
/** Typical raw events written to a private Redis for the bytes-per-raw-event figure. */
const RAW_BYTES_EVENTS = 5000;

// name: [default, min, max] — every phase is bounded.
const NUMERIC = {
  ...suite.SATURATION_NUMERIC,
  'paced-events': [200, 0, 5000],
  'paced-rate': [100, 1, 1000],
  'sample-every': [10, 1, 1000],
  'drain-timeout': [180, 10, 900],
  'linger-ms': [null, 0, 1000],
  'max-batch': [null, 1, 100_000],
  'batch-size': [100, 0, 500],
  'batch-connections': [4, 1, 1000],
};

const help = `Usage: npm run bench:events [-- options]
       node scripts/bench.js events [options]

${description}.
One run: infra up, build (turbo: gateway, playbook and their dependencies), migrate the ${BENCH_DB}
database, a fresh account + event token, a playbook triggered by "${EVENT_NAME}" (so every event starts an
enrollment), then as child processes on 127.0.0.1 the gateway, the playbook service (a new consumer group
${GROUP_PREFIX}-<timestamp>, starting at the topic's end) and a bare express 5 POST /bare. Phases:
  1. bare      autocannon on POST /bare    (warm-up, then --duration s, --connections)
  2. events    autocannon on POST /events  (same), every body a new email u<n>@bench.example
  2b. batch    autocannon on POST /events/batch (same), --batch-size events per request, every one a new
               email; reported as events/s and gateway CPU ms per event next to phase 2
  3. drain     wait until every accepted event has its enrollment; 200 → effect for every
               --sample-every'th event of phase 2 (queueing behind the saturation run included)
  4. paced     --paced-events events at --paced-rate/s; 200 → effect for each (the headline figure)
  5. raw bytes Redis memory per raw event: ${RAW_BYTES_EVENTS} typical events through the gateway's store on a
               private redis-server (bench/lib/raw-bytes.js), INFO memory and MEMORY USAGE
Then SIGTERM to the children (each must exit 0). Targets: events ≥ ${TARGETS.minThroughputRatio * 100} % of bare req/s, events p99 < ${TARGETS.maxP99Ms} ms,
gateway CPU ≤ ${CPU_TARGETS.maxMsPerEvent} ms per single event and ≤ ${CPU_TARGETS.maxMsPerBatchedEvent} ms per event in batches.
Prints a report and a one-line JSON summary; writes it to bench/results/events-<timestamp>.json, and
bench/figures/events.json for a valid run with the defaults (no --profile, no --pause-consumer).

Options:
  --duration <s>        measured seconds per saturation run (default 10)
  --warmup <s>          warm-up seconds before each saturation run, discarded (default 2)
  --connections <n>     autocannon connections (default 50)
  --paced-events <n>    events in the paced phase, 0 to skip (default 200)
  --paced-rate <n>      paced events per second (default 100)
  --sample-every <n>    e2e sample rate of the saturation run (default 10)
  --drain-timeout <s>   longest wait for the consumer to catch up (default 180)
  --linger-ms <n>       KAFKA_LINGER_MS for the gateway (default: the gateway's own)
  --max-batch <n>       KAFKA_MAX_BATCH for the gateway (default: the gateway's own)
  --batch-size <n>      events per POST /events/batch request in phase 2b, 0 to skip (default 100)
  --batch-connections <n> connections of phase 2b (default 4: each holds a whole batch in flight, and
                        a few batches already keep the producer's Kafka requests full)
  --pause-consumer      stop the playbook service (SIGTERM) for phases 1-2 and start it again for 3: the gateway
                        is then measured without the consumer and Postgres competing for the cores; the
                        after-saturation e2e figure is not reported (it would include the pause)
  --profile             run gateway and playbook service with --cpu-prof; print where their CPU time went
                        (gateway: the measured POST /events run; playbook service: the drain) and draw the
                        gateway's flame graphs of the measured POST /events and batch runs (SVG, beside the
                        profiles; node bench/lib/flamegraph.js draws one from any .cpuprofile)
  --skip-build          do not build first (runs whatever is in dist/)
  --check-targets       exit 1 when a target is missed (otherwise only an invalid run exits non-zero)
  --help                this text
Exit status: 0 valid run, 1 failure (errors, non-2xx, missing effects, unclean shutdown), 2 bad usage.`;

function parseOptions(argv) {
  const { values, numbers } = suite.parseSuiteArgs(argv, {
    numeric: NUMERIC,
    options: {
      profile: { type: 'boolean', default: false },
      'pause-consumer': { type: 'boolean', default: false },
      'skip-build': { type: 'boolean', default: false },
      'check-targets': { type: 'boolean', default: false },
    },
  });
  const base = {
    profile: values.profile,
    pauseConsumer: values['pause-consumer'],
    build: !values['skip-build'],
    checkTargets: values['check-targets'],
    ...numbers,
  };
  // A shortened, profiled or paused run is reported but never replaces bench/figures/events.json.
  const defaults = !base.profile && !base.pauseConsumer && Object.entries(NUMERIC).every(([name, [fallback]]) => base[name] === fallback);
  return { ...base, defaults };
}

const { progress, out } = suite.suiteOutput('events');

// Only what the benchmark runs (turbo adds their workspace dependencies), so a workspace it does not
// use that does not compile right now does not stop it.
const BUILD_FILTERS = ['@glimpse/gateway', '@glimpse/playbook'];

async function waitUntil(probe, { timeoutMs, intervalMs = 100, what }) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(intervalMs);
  }
}

/** Bodies `{event, email: u<n>@bench.example, properties}` with n counting up across all event phases. */
function bodyFactory(prefix = 'u') {
  let n = 0;
  return () => {
    n += 1;
    const email = `${prefix}${n}@bench.example`;
    return { body: JSON.stringify({ event: EVENT_NAME, email, properties: { plan: 'pro' } }), meta: { n, email } };
  };
}

function e2eFrom(times, startedAtByEmail) {
  const latencies = [];
  const missing = [];
  for (const [email, t200] of times) {
    const startedAt = startedAtByEmail.get(email);
    if (startedAt === undefined) missing.push(email);
    else latencies.push(startedAt - t200);
  }
  return { ...summarize(latencies), missing: missing.length, missingExamples: missing.slice(0, 3) };
}

async function run(argv) {
  const begun = suite.beginRun('events', argv, parseOptions);
  if (begun.exitCode !== undefined) return begun.exitCode;
  const { opts, env, startedAt, stamp, machine, problems, children, shutdown, cleanups, result } = begun;

  await suite.runPhases({ ...begun, progress, reportCleanupErrors: false }, async () => {
    const { databaseUrl, dbs, sql } = await suite.setUpInfraAndDatabase({
      env,
      name: BENCH_DB,
      poolSize: 2,
      buildFilters: BUILD_FILTERS,
      doBuild: opts.build,
      progress,
      cleanups,
    });
    // Required only now: dist/ exists after the build.
    const { createAccount, createEventToken } = require('../shared/auth/dist/index.js');
    const { createPlaybook, eventCatalog } = require('../services/playbook/dist/index.js');
    const { TOPICS } = require('../shared/messaging/dist/index.js');

    const account = await createAccount(dbs.identity, `bench events ${startedAt.toISOString()}`);
    const token = await createEventToken(dbs.identity, account.id);

    const [gatewayPort, playbookPort, barePort] = await suite.freePorts(3);
    // POST /events never uses INTERNAL_TOKEN.
    const serviceEnv = { ...suite.serviceEnvBase(databaseUrl), ...suite.infraEnv(env) };
    const gatewayEnv = {
      ...suite.asService(serviceEnv, 'gateway'),
      PORT: String(gatewayPort),
      EVENTS_RATE_LIMIT_PER_SECOND: String(1_000_000_000),
      ...(opts['linger-ms'] !== null ? { KAFKA_LINGER_MS: String(opts['linger-ms']) } : {}),
      ...(opts['max-batch'] !== null ? { KAFKA_MAX_BATCH: String(opts['max-batch']) } : {}),
    };
    const profileDir = path.join(RESULTS_DIR, `profiles-${stamp}`);
    const groupId = `${GROUP_PREFIX}-${stamp}`;
    result.params = {
      durationSec: opts.duration,
      warmupSec: opts.warmup,
      connections: opts.connections,
      pipelining: 1,
      pacedEvents: opts['paced-events'],
      pacedRatePerSec: opts['paced-rate'],
      sampleEvery: opts['sample-every'],
      batchSize: opts['batch-size'],
      batchConnections: opts['batch-connections'],
      kafkaLingerMs: gatewayEnv.KAFKA_LINGER_MS ?? 'gateway default',
      kafkaMaxBatch: gatewayEnv.KAFKA_MAX_BATCH ?? 'gateway default',
      consumerDuringLoad: !opts.pauseConsumer,
      profile: opts.profile,
      database: BENCH_DB,
      groupId,
    };

    await startGroupAtEnd({ brokers: env.kafkaBrokers, groupId, topic: TOPICS.eventsInbound });
    const lag = createLagProbe({ brokers: env.kafkaBrokers, groupId, topic: TOPICS.eventsInbound });
    cleanups.push(() => lag.close());

    progress('starting gateway, playbook service and bare endpoint');
    const gatewayUrl = suite.urlOf(gatewayPort);
    const bareUrl = suite.urlOf(barePort);
    const playbookSpec = {
      name: 'playbook',
      script: 'services/playbook/dist/main.js',
      // Production refuses to start without its own erasure key; unused here.
      env: {
        ...suite.asService(serviceEnv, 'playbook'),
        PLAYBOOK_ERASURE_KEY: crypto.randomBytes(32).toString('hex'),
        PLAYBOOK_PORT: String(playbookPort),
        PLAYBOOK_GROUP_ID: groupId,
      },
      nodeArgs: suite.cpuProfArgs(opts.profile, path.join(profileDir, 'playbook')),
      readyUrl: `${suite.urlOf(playbookPort)}/readyz`,
    };
    await suite.startServices(children, [
      {
        name: 'gateway',
        script: 'services/gateway/dist/main.js',
        env: gatewayEnv,
        nodeArgs: suite.cpuProfArgs(opts.profile, path.join(profileDir, 'gateway')),
        readyUrl: `${gatewayUrl}/readyz`,
      },
      playbookSpec,
      suite.bareSpec(barePort),
    ]);

    // Rule 3: the trigger must be in the account's catalog, so the name is sent once first.
    const headers = { 'content-type': 'application/json', authorization: `Bearer ${token.secret}` };
    // Retried on 503 for a while: the broker may be restarting (tests on this machine stop and start it).
    let lastAnswer = '';
    await waitUntil(
      async () => {
        const res = await fetch(`${gatewayUrl}/events`, {
          method: 'POST',
          headers,
          body: JSON.stringify({ event: EVENT_NAME, email: 'first@bench.example', properties: { plan: 'pro' } }),
        });
        lastAnswer = `${res.status} ${await res.text()}`;
        if (res.status !== 200 && res.status !== 503) throw new Error(`the first ${EVENT_NAME} event was answered ${lastAnswer}`);
        return res.status === 200;
      },
      { timeoutMs: 60_000, intervalMs: 1000, what: `the first ${EVENT_NAME} event to be accepted` },
    ).catch((err) => {
      throw new Error(`${err.message} (last answer: ${lastAnswer})`);
    });
    await waitUntil(async () => (await eventCatalog(dbs.playbook, account.id)).some((e) => e.name === EVENT_NAME), {
      timeoutMs: opts['drain-timeout'] * 1000,
      intervalMs: 200,
      what: `"${EVENT_NAME}" in the catalog (is the playbook consumer running?)`,
    });
    const playbook = await createPlaybook(dbs.playbook, { accountId: account.id, name: 'bench: every signup', triggers: [EVENT_NAME] });
    const enrollmentsSince = async (sinceMs) => {
      const { rows } = await sql.query("SELECT email, started_at FROM enrollments WHERE playbook_id = $1 AND status = 'active' AND started_at >= $2", [
        playbook.id,
        new Date(sinceMs),
      ]);
      return rows;
    };
    const enrollmentCount = async () => Number((await sql.query('SELECT count(*) AS n FROM enrollments WHERE playbook_id = $1', [playbook.id])).rows[0].n);
    await waitUntil(async () => (await lag.lag()) === 0, {
      timeoutMs: opts['drain-timeout'] * 1000,
      intervalMs: 500,
      what: 'the playbook consumer to catch up before the load',
    });

    suite.printHeader(out, 'Glimpse events benchmark', machine, result.params);

    if (opts.pauseConsumer) {
      progress('pausing the consumer: SIGTERM to the playbook service');
      const exit = await stopChild(children.playbook);
      shutdown['playbook (paused)'] = exit;
      delete children.playbook;
    }
    const startMeter = () =>
      startCpuMeter({
        loadgen: process.pid,
        gateway: children.gateway.pid,
        ...(children.playbook ? { playbook: children.playbook.pid } : {}),
        bare: children.bare.pid,
        ...infraPids(),
      });
    const loadOptions = { connections: opts.connections, durationSec: opts.duration, warmupSec: opts.warmup, headers, startMeter };

    progress(`phase 1/5: bare POST /bare (${opts.warmup} s warm-up + ${opts.duration} s, ${opts.connections} connections)`);
    const bare = await saturate({ ...loadOptions, url: `${bareUrl}/bare`, nextBody: bodyFactory('bare') });

    progress(`phase 2/5: POST /events (${opts.warmup} s warm-up + ${opts.duration} s, ${opts.connections} connections)`);
    const nextEvent = bodyFactory('u');
    const sampled = new Map();
    const events = await saturate({
      ...loadOptions,
      url: `${gatewayUrl}/events`,
      nextBody: nextEvent,
      onResponse(status, meta, atMs) {
        if (status === 200 && meta.n % opts['sample-every'] === 0) sampled.set(meta.email, atMs);
      },
    });
    let batch = null;
    if (opts['batch-size'] > 0) {
      progress(
        `phase 2b/5: POST /events/batch of ${opts['batch-size']} (${opts.warmup} s warm-up + ${opts.duration} s, ${opts['batch-connections']} connections)`,
      );
      const size = opts['batch-size'];
      batch = await saturate({
        ...loadOptions,
        connections: opts['batch-connections'],
        url: `${gatewayUrl}/events/batch`,
        nextBody: () => {
          const events = Array.from({ length: size }, () => JSON.parse(nextEvent().body));
          return { body: JSON.stringify({ events }), meta: null };
        },
      });
    }
    const loadEndedAt = Date.now();
    // The saturation figures first: they stand even when the drain below does not finish.
    const ratio = round(events.measured.reqPerSec / bare.measured.reqPerSec, 3);
    const line = (label, m) => suite.saturationLine(label, m, 8);
    out(`Saturation (${opts.connections} connections, ${opts.duration} s after ${opts.warmup} s warm-up)`);
    out(line('bare', bare.measured));
    out(line('events', events.measured));
    out(`ratio    events/bare throughput ${ratio} (target ≥ ${TARGETS.minThroughputRatio})`);
    for (const [label, r, server] of [
      ['bare', bare, 'bare'],
      ['events', events, 'gateway'],
    ]) {
      const c = r.measured.cpu;
      // CPU per request holds up better than req/s when other work shares the machine.
      c.serverCpuMsPerRequest = suite.cpuMsPerRequest(r.measured, server);
      out(
        `cpu      ${label.padEnd(7)} ${server} ${c.serverCpuMsPerRequest} ms CPU/request; machine ${c.machineBusyPct} % busy; % of one core: ${Object.entries(
          c.coresPct,
        )
          .map(([k, v]) => `${k} ${v}`)
          .join(', ')}`,
      );
    }
    if (batch) {
      const size = opts['batch-size'];
      const c = batch.measured.cpu;
      c.serverCpuMsPerRequest = suite.cpuMsPerRequest(batch.measured, 'gateway');
      const batchEventsPerSec = round(batch.measured.reqPerSec * size);
      batch.eventsPerSec = batchEventsPerSec;
      batch.cpuMsPerEvent = round(c.serverCpuMsPerRequest / size, 4);
      batch.ratioToSingle = round(batchEventsPerSec / events.measured.reqPerSec, 2);
      batch.cpuRatioToSingle = round(events.measured.cpu.serverCpuMsPerRequest / batch.cpuMsPerEvent, 2);
      out(line(`batch/${size}`, batch.measured) + ` (${opts['batch-connections']} connections)`);
      out(
        `batch    ${batchEventsPerSec} events/s through batches of ${size} vs ${round(events.measured.reqPerSec)} events/s single: ×${batch.ratioToSingle}; ` +
          `gateway ${batch.cpuMsPerEvent} ms CPU/event vs ${events.measured.cpu.serverCpuMsPerRequest} single (×${batch.cpuRatioToSingle} less)`,
      );
    }
    suite.flagFailedRuns([['bare', bare], ['events', events], ...(batch ? [['batch', batch]] : [])], problems, out);
    Object.assign(result, { bare, events, batch, ratio });
    if (opts.pauseConsumer) {
      progress('resuming the consumer: starting the playbook service again');
      children.playbook = startChild(playbookSpec);
      await waitReady(children.playbook, playbookSpec.readyUrl);
    }
    const drainStartUs = Number(process.hrtime.bigint() / 1000n);
    const batchAccepted = batch ? ((batch.warmup ? batch.warmup.ok : 0) + batch.measured.ok) * opts['batch-size'] : 0;
    const accepted = (events.warmup ? events.warmup.ok : 0) + events.measured.ok + batchAccepted;

    // Requests in flight when autocannon stopped were accepted too, uncounted: so the consumer has
    // drained when its lag is 0, and at least every counted 200 has its enrollment.
    progress(`phase 3/5: drain (${accepted} events answered 200; waiting for the consumer)`);
    await waitUntil(async () => (await lag.lag()) === 0 && (await enrollmentCount()) >= accepted, {
      timeoutMs: opts['drain-timeout'] * 1000,
      intervalMs: 250,
      what: `the consumer to drain (${accepted} enrollments)`,
    });
    const drainMs = Date.now() - loadEndedAt;
    const drainWindow = { startUs: drainStartUs, endUs: Number(process.hrtime.bigint() / 1000n) };
    const sampledRows = await sql.query('SELECT email, started_at FROM enrollments WHERE account_id = $1 AND email = ANY($2::text[])', [
      account.id,
      [...sampled.keys()],
    ]);
    const saturationE2e = e2eFrom(sampled, new Map(sampledRows.rows.map((r) => [r.email, r.started_at.getTime()])));

    let pacedResult = null;
    if (opts['paced-events'] > 0) {
      progress(`phase 4/5: paced, ${opts['paced-events']} events at ${opts['paced-rate']}/s`);
      // Watches enrollments appear, for the time an effect becomes visible (commit included), next to started_at.
      const visibleAt = new Map();
      const pacedStart = Date.now() - 1000;
      let polling = true;
      const poller = (async () => {
        while (polling) {
          const rows = await enrollmentsSince(pacedStart);
          const now = Date.now();
          for (const r of rows) if (!visibleAt.has(r.email)) visibleAt.set(r.email, now);
          await sleep(10);
        }
      })();
      const sent = await paced({ url: `${gatewayUrl}/events`, headers, count: opts['paced-events'], ratePerSec: opts['paced-rate'], nextBody: nextEvent });
      const ok = sent.filter((s) => s.status === 200);
      await waitUntil(() => ok.every((s) => visibleAt.has(s.meta.email)), { timeoutMs: 30_000, intervalMs: 20, what: "the paced events' enrollments" }).catch(
        (err) => problems.push(err.message),
      );
      polling = false;
      await poller;
      const rows = await enrollmentsSince(pacedStart);
      const times = new Map(ok.map((s) => [s.meta.email, s.doneAt]));
      pacedResult = {
        sent: sent.length,
        ok: ok.length,
        non2xx: sent.filter((s) => s.status !== 200 && s.status !== 0).length,
        errors: sent.filter((s) => s.status === 0).length,
        firstError: sent.find((s) => s.status === 0)?.error,
        httpLatencyMs: summarize(sent.map((s) => s.latencyMs)),
        e2eStartedAtMs: e2eFrom(times, new Map(rows.map((r) => [r.email, r.started_at.getTime()]))),
        e2eVisibleMs: e2eFrom(times, visibleAt),
      };
    }

    out();
    out('End to end: the 200 at the client → enrollments.started_at (= playbook_effects.at, stamped by the consumer at the start of its transaction)');
    const e2eLine = (label, s) =>
      `${label.padEnd(30)} n ${s.count}   p50 ${s.p50} ms   p99 ${s.p99} ms   min ${s.min} ms   max ${s.max} ms${s.missing ? `   MISSING ${s.missing}` : ''}`;
    if (pacedResult) {
      out(e2eLine(`paced ${opts['paced-rate']}/s (headline)`, pacedResult.e2eStartedAtMs));
      out(e2eLine('paced, visible to a poller', pacedResult.e2eVisibleMs));
      out(
        `paced HTTP latency              p50 ${round(pacedResult.httpLatencyMs.p50)} ms   p99 ${round(pacedResult.httpLatencyMs.p99)} ms   (${pacedResult.ok}/${pacedResult.sent} answered 200)`,
      );
      if (pacedResult.ok !== pacedResult.sent)
        problems.push(
          `paced: ${pacedResult.sent - pacedResult.ok} of ${pacedResult.sent} not answered 200${pacedResult.firstError ? ` (${pacedResult.firstError})` : ''}`,
        );
      for (const k of ['e2eStartedAtMs', 'e2eVisibleMs'])
        if (pacedResult[k].missing) problems.push(`paced: ${pacedResult[k].missing} accepted events without an enrollment`);
    }
    if (!opts.pauseConsumer) out(e2eLine('after saturation (queueing)', saturationE2e));
    out(
      `drain    the consumer finished ${round(drainMs / 1000)} s after the load ended (${accepted} events answered 200)${opts.pauseConsumer ? ', paused during the load' : ''}`,
    );
    if (saturationE2e.missing && !opts.pauseConsumer) problems.push(`saturation: ${saturationE2e.missing} sampled accepted events without an enrollment`);

    progress(`phase 5/5: bytes of Redis memory per raw event (${RAW_BYTES_EVENTS} events on a private redis-server)`);
    const rawBytes = await measureRawBytes({ redisUrl: env.redisUrl, events: RAW_BYTES_EVENTS });
    out();
    out(
      `raw      ${rawBytes.streams.infoDeltaBytesPerEvent} bytes of Redis memory per raw event (INFO memory delta; MEMORY USAGE ${rawBytes.streams.memoryUsageBytesPerEvent}), ` +
        `index and limits included, ${rawBytes.streams.jsonBytesPerEvent} bytes of JSON; the replaced layout ${rawBytes.replaced.infoDeltaBytesPerEvent} (×${rawBytes.ratio})`,
    );

    Object.assign(result, {
      bare,
      events,
      batch,
      ratio,
      e2e: {
        paced: pacedResult,
        saturation: opts.pauseConsumer ? { drainMs, accepted, note: 'consumer paused during the load' } : { ...saturationE2e, drainMs, accepted },
      },
      drainWindow,
      rawBytes,
    });
  });

  if (opts.profile && result.params) {
    suite.reportProfiles({
      dir: path.join(RESULTS_DIR, `profiles-${stamp}`),
      // With --pause-consumer the playbook service ran twice; the drain is in the last profile.
      services: {
        gateway: [result.events && result.events.measured.window, 'the measured POST /events run'],
        playbook: [result.drainWindow, 'the drain after the load'],
      },
      result,
      problems,
      out,
    });
    writeGatewayFlameGraphs(path.join(RESULTS_DIR, `profiles-${stamp}`), result, problems);
  }

  const m = result.events && result.events.measured;
  const cpuSingle = m && m.cpu.serverCpuMsPerRequest;
  const cpuBatched = result.batch && result.batch.cpuMsPerEvent;
  const targets = m
    ? {
        throughputRatio: { target: `>= ${TARGETS.minThroughputRatio}`, actual: result.ratio, met: result.ratio >= TARGETS.minThroughputRatio },
        p99Ms: { target: `< ${TARGETS.maxP99Ms}`, actual: m.latencyMs.p99, met: m.latencyMs.p99 < TARGETS.maxP99Ms },
        gatewayCpuMsPerEvent: { target: `<= ${CPU_TARGETS.maxMsPerEvent}`, actual: cpuSingle, met: cpuSingle <= CPU_TARGETS.maxMsPerEvent },
        ...(cpuBatched !== undefined && cpuBatched !== null
          ? {
              gatewayCpuMsPerBatchedEvent: {
                target: `<= ${CPU_TARGETS.maxMsPerBatchedEvent}`,
                actual: cpuBatched,
                met: cpuBatched <= CPU_TARGETS.maxMsPerBatchedEvent,
              },
            }
          : {}),
      }
    : null;
  const allMet = targets && Object.values(targets).every((t) => t.met);
  suite.closeResult(result, targets, problems);

  const pacedE2e = result.e2e && result.e2e.paced ? result.e2e.paced.e2eStartedAtMs : null;
  // The summary's own fields, between the common head (suite, date, machine, load) and tail (shutdown, valid).
  const fields = {
    params: result.params && {
      connections: result.params.connections,
      durationSec: result.params.durationSec,
      warmupSec: result.params.warmupSec,
      consumerDuringLoad: result.params.consumerDuringLoad,
      lingerMs: result.params.kafkaLingerMs,
      maxBatch: result.params.kafkaMaxBatch,
    },
    cpuMsPerRequest: result.events && { bare: result.bare.measured.cpu.serverCpuMsPerRequest, gateway: result.events.measured.cpu.serverCpuMsPerRequest },
    bare: result.bare && { rps: result.bare.measured.reqPerSec, p50: result.bare.measured.latencyMs.p50, p99: result.bare.measured.latencyMs.p99 },
    events: m && { rps: m.reqPerSec, p50: m.latencyMs.p50, p99: m.latencyMs.p99, errors: m.errors + m.timeouts, non2xx: m.non2xx },
    batch: result.batch && {
      size: result.params.batchSize,
      rps: result.batch.measured.reqPerSec,
      eventsPerSec: result.batch.eventsPerSec,
      p50: result.batch.measured.latencyMs.p50,
      p99: result.batch.measured.latencyMs.p99,
      cpuMsPerEvent: result.batch.cpuMsPerEvent,
      eventsPerSecVsSingle: result.batch.ratioToSingle,
      errors: result.batch.measured.errors + result.batch.measured.timeouts,
      non2xx: result.batch.measured.non2xx,
    },
    ratio: result.ratio,
    e2eMs: result.e2e && {
      paced: pacedE2e && { n: pacedE2e.count, p50: pacedE2e.p50, p99: pacedE2e.p99 },
      afterSaturation:
        result.e2e.saturation.count === undefined ? null : { n: result.e2e.saturation.count, p50: result.e2e.saturation.p50, p99: result.e2e.saturation.p99 },
    },
    rawBytes: result.rawBytes && {
      perEvent: result.rawBytes.streams.infoDeltaBytesPerEvent,
      memoryUsagePerEvent: result.rawBytes.streams.memoryUsageBytesPerEvent,
      replacedLayoutPerEvent: result.rawBytes.replaced.infoDeltaBytesPerEvent,
      met: result.rawBytes.met,
    },
    targetsMet: targets && {
      throughput: targets.throughputRatio.met,
      p99: targets.p99Ms.met,
      gatewayCpuSingle: targets.gatewayCpuMsPerEvent.met,
      ...(targets.gatewayCpuMsPerBatchedEvent ? { gatewayCpuBatched: targets.gatewayCpuMsPerBatchedEvent.met } : {}),
    },
  };
  const verdict = (t) => `${t.met ? 'MET' : 'MISSED'} (${t.target}`;
  suite.writeAndPrintSummary({
    result,
    fields,
    startedAt,
    problems,
    out,
    latest: opts.defaults,
    targetsLine:
      targets &&
      `targets  throughput ratio ${targets.throughputRatio.actual} ${verdict(targets.throughputRatio)}); ` +
        `events p99 ${targets.p99Ms.actual} ms ${verdict(targets.p99Ms)} ms); ` +
        `gateway CPU/event ${targets.gatewayCpuMsPerEvent.actual} ms ${verdict(targets.gatewayCpuMsPerEvent)})` +
        (targets.gatewayCpuMsPerBatchedEvent
          ? `, batched ${targets.gatewayCpuMsPerBatchedEvent.actual} ms ${verdict(targets.gatewayCpuMsPerBatchedEvent)})`
          : ''),
  });

  if (problems.length) return 1;
  if (opts.checkTargets && targets && !allMet) return 1;
  return 0;
}

/** Flame graphs of the gateway's profile over its measured POST /events and batch runs, beside the profiles. */
function writeGatewayFlameGraphs(dir, result, problems) {
  try {
    const file = suite.lastProfile(path.join(dir, 'gateway'));
    if (!file) return;
    const runs = [
      ['events', result.events, 'POST /events'],
      ['batch', result.batch, `POST /events/batch of ${result.params.batchSize}`],
    ];
    for (const [name, run, label] of runs) {
      if (!run) continue;
      const events = run.measured.requests * (name === 'batch' ? result.params.batchSize : 1);
      const svg = writeFlameGraph(file, path.join(dir, `gateway-${name}.svg`), {
        window: run.measured.window,
        events,
        title: `gateway under ${label}: ${run.measured.reqPerSec} req/s (profiled)`,
      });
      out(`flame    ${path.relative(process.cwd(), svg)}`);
    }
  } catch (err) {
    problems.push(`flame graph: ${err.message}`);
  }
}

module.exports = { description, help, run };
