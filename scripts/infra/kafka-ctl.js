// Runs the project's local single-node KRaft Kafka broker (jars from Maven, config, storage format, start/stop, readiness)
// and creates the Glimpse topics. Used by up.js, down.js and by tests that stop/restart the broker.
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const crypto = require('node:crypto');
const { spawn } = require('node:child_process');
const { REPO_ROOT, readEnv, isLocalHost } = require('./env');
const { log, secs, shortPath, waitFor, tailFile, run } = require('./util');
const { TOPICS, BROKER_SETTINGS } = require('./topics');

const DEPLOY_DIR = path.join(REPO_ROOT, 'deploy', 'local', 'kafka');
const POM = path.join(DEPLOY_DIR, 'pom.xml');
const LOG4J = path.join(DEPLOY_DIR, 'log4j.properties');
const JVM_OPTS = [
  '-Xms256m',
  '-Xmx512m',
  '-XX:+UseG1GC',
  '-XX:MaxGCPauseMillis=20',
  '-XX:InitiatingHeapOccupancyPercent=35',
  '-XX:+ExplicitGCInvokesConcurrent',
  '-Djava.awt.headless=true',
  `-Dlog4j.configuration=file:${LOG4J}`,
];

function kafkaPaths(kafkaDir = readEnv().kafkaDir) {
  const p = (name) => path.join(kafkaDir, name);
  // The jars are shared: a broker in another directory (a test's private one) does not fetch them again.
  return {
    dir: kafkaDir,
    libs: path.join(readEnv().kafkaDir, 'libs'),
    data: p('data'),
    config: p('server.properties'),
    log: p('kafka.log'),
    pid: p('kafka.pid'),
  };
}

function parseBroker(broker) {
  const i = broker.lastIndexOf(':');
  return { host: broker.slice(0, i).replace(/^\[|\]$/g, ''), port: Number(broker.slice(i + 1)) };
}

function kafkaClient(brokers, opts = {}) {
  const { Kafka, logLevel } = require('kafkajs');
  return new Kafka({ clientId: 'glimpse-infra', brokers, logLevel: logLevel.NOTHING, ...opts });
}

/** True if a broker answers a metadata request on `brokers` right now (fails fast, no retries). */
async function isKafkaUp(brokers = readEnv().kafkaBrokers) {
  const admin = kafkaClient(brokers, { connectionTimeout: 1000, requestTimeout: 2000, retry: { retries: 0 } }).admin();
  try {
    await admin.connect();
    await admin.describeCluster();
    return true;
  } catch {
    return false;
  } finally {
    await admin.disconnect().catch(() => {});
  }
}

/** Is `pid` a live (non-zombie) kafka.Kafka process? Zombies matter: killed brokers may never be reaped by pid 1. */
function isBrokerProcess(pid) {
  if (!fs.existsSync('/proc/self')) {
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  }
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    if ('ZX'.includes(stat.slice(stat.lastIndexOf(')') + 2)[0])) return false;
    return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('kafka.Kafka');
  } catch {
    return false;
  }
}

/** Pid of the broker this project started (from the pid file), or null if it is not running. */
function brokerPid(p = kafkaPaths()) {
  const pid = Number.parseInt(fs.existsSync(p.pid) ? fs.readFileSync(p.pid, 'utf8') : '', 10);
  return pid > 0 && isBrokerProcess(pid) ? pid : null;
}

/** Fetches the broker jars into libs/ with Maven unless they are there for the current pom.xml. */
async function ensureLibs(p) {
  const stamp = crypto.createHash('sha256').update(fs.readFileSync(POM)).digest('hex');
  const marker = path.join(p.libs, '.pom.sha256');
  if (fs.existsSync(marker) && fs.readFileSync(marker, 'utf8') === stamp) return;
  const t0 = Date.now();
  log('kafka: fetching broker jars with Maven (first run or pom.xml changed)…');
  const tmp = `${p.libs}.tmp-${process.pid}`;
  fs.rmSync(tmp, { recursive: true, force: true });
  const mvn = await run('mvn', ['-q', '-B', '-Dstyle.color=never', '-f', POM, 'dependency:copy-dependencies', `-DoutputDirectory=${tmp}`]).catch((err) => {
    throw new Error(`kafka: cannot run mvn (${err.message}); Maven 3 is needed to fetch the broker jars`);
  });
  if (mvn.status !== 0) {
    throw new Error(`kafka: mvn dependency:copy-dependencies failed (exit ${mvn.status}):\n${mvn.output.split('\n').slice(-30).join('\n')}`);
  }
  fs.writeFileSync(path.join(tmp, '.pom.sha256'), stamp);
  fs.rmSync(p.libs, { recursive: true, force: true });
  fs.renameSync(tmp, p.libs);
  log(`kafka: jars ready in ${shortPath(p.libs)} (${secs(t0)})`);
}

function writeServerProperties(p, { host, port }) {
  const props = {
    'process.roles': 'broker,controller',
    'node.id': 1,
    'controller.quorum.voters': `1@${host}:${port + 1}`,
    listeners: `PLAINTEXT://${host}:${port},CONTROLLER://${host}:${port + 1}`,
    'advertised.listeners': `PLAINTEXT://${host}:${port}`,
    'controller.listener.names': 'CONTROLLER',
    'inter.broker.listener.name': 'PLAINTEXT',
    'listener.security.protocol.map': 'CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT',
    'log.dirs': p.data,
    'num.partitions': 3,
    'auto.create.topics.enable': false,
    'offsets.topic.replication.factor': 1,
    'offsets.topic.num.partitions': 1, // single broker: the default 50 only slows down the first consumer group
    'transaction.state.log.replication.factor': 1,
    'transaction.state.log.min.isr': 1,
    'group.initial.rebalance.delay.ms': 0,
    // After a hard kill the controller keeps the old broker registration until the session times out (default 9 s),
    // so a restart would wait that long with DUPLICATE_BROKER_REGISTRATION; a shorter session makes restarts quick.
    'broker.heartbeat.interval.ms': 1000,
    'broker.session.timeout.ms': 4000,
    // What the topics' 24 h purge relies on (shared/messaging/src/topics.json).
    ...BROKER_SETTINGS,
  };
  const body = Object.entries(props)
    .map(([k, v]) => `${k}=${v}`)
    .join('\n');
  fs.writeFileSync(p.config, `# Generated by scripts/infra/kafka-ctl.js on every start; edit that file instead.\n${body}\n`);
}

/** Formats the KRaft storage once; a formatted data dir (meta.properties) is reused as is, keeping its cluster id. */
async function ensureFormatted(p) {
  const meta = path.join(p.data, 'meta.properties');
  if (fs.existsSync(meta)) return;
  // A Kafka Uuid is 16 random bytes in unpadded base64url; Kafka never hands out ids starting with '-'.
  let clusterId;
  do clusterId = crypto.randomBytes(16).toString('base64url');
  while (clusterId.startsWith('-'));
  const res = await run('java', [
    ...JVM_OPTS,
    '-cp',
    path.join(p.libs, '*'),
    'kafka.tools.StorageTool',
    'format',
    '--ignore-formatted',
    '--cluster-id',
    clusterId,
    '--config',
    p.config,
  ]);
  if (res.status !== 0) throw new Error(`kafka: storage format failed (exit ${res.status}):\n${res.output}`);
  log(`kafka: formatted ${shortPath(p.data)} (cluster id ${clusterId})`);
}

/** Serialises broker starts across processes: a second infra:up waits for the first instead of racing it. */
async function withStartLock(p, fn) {
  const lock = path.join(p.dir, 'start.lock');
  const take = () => {
    try {
      fs.writeFileSync(lock, String(process.pid), { flag: 'wx' });
      return true;
    } catch (err) {
      if (err.code !== 'EEXIST') throw err;
    }
    try {
      process.kill(Number(fs.readFileSync(lock, 'utf8')), 0);
    } catch (err) {
      if (err.code !== 'EPERM') fs.rmSync(lock, { force: true }); // owner is gone: stale lock
    }
    return false;
  };
  if (!(await waitFor(take, 180_000, 200))) throw new Error(`kafka: another infra:up holds ${lock} for over 3 min`);
  try {
    return await fn();
  } finally {
    fs.rmSync(lock, { force: true });
  }
}

const START_MARKER = 'glimpse infra: starting kafka.Kafka';

/** The ERROR/FATAL lines and exception causes logged since the last start (else the log tail): what to show on failure. */
function startupErrors(logFile) {
  const text = tailFile(logFile, 5000);
  const lines = text.slice(text.lastIndexOf(START_MARKER)).split('\n');
  const errors = lines.filter((l) => /^\[[^\]]+\] (ERROR|FATAL) |^Caused by: |^[\w.$]+(Exception|Error): /.test(l));
  return (errors.length ? errors.slice(0, 12) : lines.slice(-25)).join('\n');
}

function spawnBroker(p) {
  const out = fs.openSync(p.log, 'a');
  fs.writeSync(out, `\n===== ${new Date().toISOString()} ${START_MARKER} =====\n`);
  const child = spawn('java', [...JVM_OPTS, '-cp', path.join(p.libs, '*'), 'kafka.Kafka', p.config], {
    cwd: p.dir,
    detached: true,
    stdio: ['ignore', out, out],
  });
  fs.closeSync(out);
  if (!child.pid) throw new Error('kafka: could not start java (is a JDK 17 on PATH?)');
  child.on('error', () => {}); // exit/failure is detected through the pid and the log instead
  child.unref();
  fs.writeFileSync(p.pid, `${child.pid}\n`);
  return child.pid;
}

/** Starts our broker from the (possibly new) data dir, or waits for one already starting, until it answers. */
async function spawnAndWait(p, brokers, listener, t0, timeoutMs) {
  let pid = brokerPid(p);
  if (pid) {
    log(`kafka: broker pid ${pid} is already starting, waiting for it`);
  } else {
    await ensureLibs(p);
    writeServerProperties(p, listener);
    await ensureFormatted(p);
    pid = spawnBroker(p);
  }
  let died = false;
  const ready = await waitFor(async () => (died = !isBrokerProcess(pid)) || isKafkaUp(brokers), timeoutMs, 500);
  if (died || !ready) {
    const why = died ? `broker (pid ${pid}) exited during startup` : `broker (pid ${pid}) not answering after ${timeoutMs / 1000} s; stop it with infra:down`;
    throw new Error(`kafka: ${why}. From ${p.log}:\n${startupErrors(p.log)}`);
  }
  log(`kafka: started on ${brokers[0]} (${secs(t0)})`);
  return { started: true, pid };
}

/**
 * Idempotent: returns at once if a broker answers on `brokers`; otherwise starts this project's broker
 * (or waits for one it already started) and resolves when it answers. Restarts reuse the same data dir.
 */
async function startKafka({ brokers = readEnv().kafkaBrokers, timeoutMs = 60_000, kafkaDir = undefined } = {}) {
  const t0 = Date.now();
  if (await isKafkaUp(brokers)) {
    log(`kafka: already running on ${brokers.join(',')}`);
    return { started: false };
  }
  const { host, port } = parseBroker(brokers[0]);
  if (!isLocalHost(host)) throw new Error(`kafka: ${brokers.join(',')} is not answering and is not local, so it cannot be started here`);
  const p = kafkaPaths(kafkaDir);
  fs.mkdirSync(p.dir, { recursive: true });
  return withStartLock(p, async () => {
    if (await isKafkaUp(brokers)) {
      log(`kafka: already running on ${brokers.join(',')} (started by a concurrent infra:up)`);
      return { started: false };
    }
    return spawnAndWait(p, brokers, { host, port }, t0, timeoutMs);
  });
}

/**
 * Stops the broker this project started (pid file): SIGTERM, then SIGKILL after `timeoutMs`; `force` kills at once.
 * Resolves { stopped: false, reason } when there is nothing of ours to stop; a broker started elsewhere is left alone.
 */
async function stopKafka({ timeoutMs = 30_000, force = false, kafkaDir = undefined } = {}) {
  const p = kafkaPaths(kafkaDir);
  const pid = brokerPid(p);
  if (!pid) {
    const reason = fs.existsSync(p.pid) ? 'stale pid file removed' : 'no pid file';
    fs.rmSync(p.pid, { force: true });
    return { stopped: false, reason };
  }
  const t0 = Date.now();
  process.kill(pid, force ? 'SIGKILL' : 'SIGTERM');
  if (!(await waitFor(() => !isBrokerProcess(pid), timeoutMs, 200))) {
    log(`kafka: pid ${pid} still running after ${timeoutMs / 1000} s, sending SIGKILL`);
    process.kill(pid, 'SIGKILL');
    if (!(await waitFor(() => !isBrokerProcess(pid), 10_000, 200))) throw new Error(`kafka: pid ${pid} survived SIGKILL`);
  }
  fs.rmSync(p.pid, { force: true });
  return { stopped: true, pid, ms: Date.now() - t0 };
}

/** Creates missing topics from topics.js; fixes partition counts (grow only) and topic configs of existing ones. */
async function ensureTopics({ brokers = readEnv().kafkaBrokers, topics = TOPICS } = {}) {
  const { ConfigResourceTypes } = require('kafkajs');
  const entries = (t) => Object.entries(t.config).map(([name, value]) => ({ name, value }));
  const admin = kafkaClient(brokers).admin();
  await admin.connect();
  try {
    const existing = new Set(await admin.listTopics());
    const missing = topics.filter((t) => !existing.has(t.name));
    const present = topics.filter((t) => existing.has(t.name));
    if (missing.length) {
      await admin.createTopics({
        waitForLeaders: true,
        topics: missing.map((t) => ({ topic: t.name, numPartitions: t.partitions, configEntries: entries(t) })),
      });
      log(`kafka: created topics ${missing.map((t) => t.name).join(', ')}`);
    }
    if (present.length) {
      const { topics: meta } = await admin.fetchTopicMetadata({ topics: present.map((t) => t.name) });
      for (const t of present) {
        const have = meta.find((m) => m.name === t.name).partitions.length;
        if (have < t.partitions) {
          await admin.createPartitions({ topicPartitions: [{ topic: t.name, count: t.partitions }] });
          log(`kafka: ${t.name} partitions ${have} -> ${t.partitions}`);
        } else if (have > t.partitions) {
          log(`kafka: warning: ${t.name} has ${have} partitions, expected ${t.partitions} (Kafka cannot shrink; delete the topic to fix)`);
        }
      }
      const { resources } = await admin.describeConfigs({
        includeSynonyms: false,
        resources: present.map((t) => ({ type: ConfigResourceTypes.TOPIC, name: t.name, configNames: Object.keys(t.config) })),
      });
      const wrong = present.filter((t) => {
        const got = resources.find((r) => r.resourceName === t.name).configEntries;
        return Object.entries(t.config).some(([k, v]) => got.find((e) => e.configName === k)?.configValue !== v);
      });
      if (wrong.length) {
        // AlterConfigs (non-incremental) replaces all overrides of the topic, which is what we want: topics.js is the full set.
        await admin.alterConfigs({
          validateOnly: false,
          resources: wrong.map((t) => ({ type: ConfigResourceTypes.TOPIC, name: t.name, configEntries: entries(t) })),
        });
        log(`kafka: fixed config of ${wrong.map((t) => t.name).join(', ')}`);
      }
    }
    // Creates __consumer_offsets now, so the first consumer group (in tests) does not hit COORDINATOR_NOT_AVAILABLE.
    await admin.describeGroups(['glimpse-infra-warmup']);
    log(`kafka: topics ok (${topics.map((t) => `${t.name}:${t.partitions}`).join(', ')})`);
  } finally {
    await admin.disconnect();
  }
}

module.exports = {
  startKafka,
  ensureKafka: startKafka,
  stopKafka,
  ensureTopics,
  isKafkaUp,
  brokerPid,
  kafkaPaths,
  // Building blocks for other broker layouts (scripts/chaos/kafka-cluster.js runs three brokers).
  JVM_OPTS,
  ensureLibs,
  isBrokerProcess,
  startupErrors,
  kafkaClient,
  START_MARKER,
};
