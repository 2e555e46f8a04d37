#!/usr/bin/env node
// infra:up — idempotently brings up local Postgres (+ databases), Redis and Kafka (+ topics) for dev and tests.
// Also a library: a test global-setup can call up() or the individual ensure* functions.
'use strict';
const fs = require('node:fs');
const net = require('node:net');
const { readEnv, isLocalHost } = require('./env');
const { log, secs, waitFor, run } = require('./util');
const { ensureKafka, ensureTopics, ensureLibs, kafkaPaths } = require('./kafka-ctl');
const { ensureRedisCluster } = require('./redis-cluster');
const { laneInfra, MAX_LANES } = require('./lanes');

const HELP = `Usage: node scripts/infra/up.js [--no-redis-cluster] [--lanes N] [--help]

Idempotently starts what Glimpse needs locally and prints progress to stderr:
  postgres  DATABASE_URL (default postgresql://postgres@127.0.0.1:5432/glimpse): starts the machine
            cluster if it is local and down, creates that database and glimpse_test if missing
  redis     REDIS_URL (default redis://127.0.0.1:6379): starts the machine redis-server if local and down
  kafka     KAFKA_BROKERS (default 127.0.0.1:9092): reuses a broker that answers, otherwise starts a
            single-node KRaft broker from INFRA_DIR/kafka (default <repo>/.infra; jars via Maven on
            first run), then creates/fixes the topics in scripts/infra/topics.js
  redis-cluster  REDIS_CLUSTER_NODES (default 127.0.0.1:7001-7006): the tests' Redis Cluster of six
            redis-server processes (3 masters, 3 replicas; no RDB/AOF, cluster-node-timeout 2000 ms,
            maxmemory 256mb noeviction; AUTH when REDIS_PASSWORD is set), config, nodes.conf, log and
            pid file per node in INFRA_DIR/redis-cluster/<port>. Reuses a healthy cluster, starts nodes
            that died (they rejoin from nodes.conf), forms it with redis-cli --cluster create, and
            re-creates it cleanly when it cannot heal; done when every node says cluster_state:ok.
            npm start does not start it (one Redis at REDIS_URL); --no-redis-cluster skips it here.
  --lanes N the test lanes 2..N as well (npm test runs N jest workers, one lane each): lane k's own
            broker on the KAFKA_BROKERS port + 10·(k-1) (data in INFRA_DIR/kafka-lane-k) with the
            topics, and its database glimpse_test_k (scripts/infra/lanes.js). Default 1.
Stop the broker and the cluster with scripts/infra/down.js.`;

const redact = (url) => {
  const u = new URL(url);
  if (u.password) u.password = '***';
  return u.toString();
};
const dbName = (databaseUrl) => decodeURIComponent(new URL(databaseUrl).pathname.slice(1));

/** `databaseUrl` with its database name replaced by `name`. */
function databaseUrlFor(databaseUrl, name) {
  const u = new URL(databaseUrl);
  u.pathname = `/${encodeURIComponent(name)}`;
  return u.toString();
}

async function withPg(databaseUrl, fn) {
  const { Client } = require('pg');
  const client = new Client({ connectionString: databaseUrl, connectionTimeoutMillis: 3000 });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end().catch(() => {});
  }
}

/** True if the server answers; false if it is down or starting; throws if it answers with an error (auth...). */
async function pgReachable(databaseUrl) {
  try {
    return await withPg(databaseUrlFor(databaseUrl, 'postgres'), async () => true);
  } catch (err) {
    const sqlState = /^\d[0-9A-Z]{4}$/.test(err.code || '') ? err.code : null;
    if (sqlState && sqlState !== '57P03') throw new Error(`postgres: ${redact(databaseUrl)}: ${err.message}`, { cause: err });
    return false;
  }
}

/** Creates the database named in `databaseUrl` if missing (via the `postgres` db). Resolves true if it created it. */
async function ensureDatabase(databaseUrl) {
  const name = dbName(databaseUrl);
  if (!name) throw new Error(`postgres: no database name in ${redact(databaseUrl)}`);
  return withPg(databaseUrlFor(databaseUrl, 'postgres'), async (client) => {
    const { rowCount } = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (rowCount) return false;
    try {
      await client.query(`CREATE DATABASE "${name.replace(/"/g, '""')}"`);
      return true;
    } catch (err) {
      if (err.code === '42P04' || err.code === '23505') return false; // created concurrently
      throw err;
    }
  });
}

async function startMachinePostgres() {
  const versions = fs.readdirSync('/etc/postgresql').sort((a, b) => Number(a) - Number(b));
  if (!versions.length) throw new Error('no cluster in /etc/postgresql');
  const res = await run('pg_ctlcluster', ['--skip-systemctl-redirect', versions.at(-1), 'main', 'start']);
  if (res.status !== 0) throw new Error(res.output || `pg_ctlcluster exited with ${res.status}`);
}

/** Makes sure the Postgres server of `databaseUrl` is up (starting the local machine cluster if needed) and its database exists. */
async function ensurePostgres({ databaseUrl = readEnv().databaseUrl } = {}) {
  if (!(await pgReachable(databaseUrl))) {
    const { hostname } = new URL(databaseUrl);
    if (!isLocalHost(hostname)) throw new Error(`postgres: ${redact(databaseUrl)} is not reachable (not local, so not starting it)`);
    const t0 = Date.now();
    await startMachinePostgres().catch((err) => {
      // Running but too busy to answer within the connect timeout (a loaded machine: two test runs
      // failed their global setup here): wait for it below like a server just started.
      if (/already running/i.test(err.message)) return log('postgres: running but slow to answer; waiting for it');
      throw new Error(`postgres: could not start the machine cluster: ${err.message}`);
    });
    if (!(await waitFor(() => pgReachable(databaseUrl), 30_000, 500))) {
      throw new Error(`postgres: started the machine cluster but ${redact(databaseUrl)} is still not reachable after 30 s`);
    }
    log(`postgres: started machine cluster (${secs(t0)})`);
  }
  const created = await ensureDatabase(databaseUrl);
  log(`postgres: ok, database ${dbName(databaseUrl)} ${created ? 'created' : 'exists'}`);
}

/** Sends a raw PING; true if a Redis server answers (+PONG, or -NOAUTH when it wants a password). */
function redisPing(redisUrl, timeoutMs = 1000) {
  const u = new URL(redisUrl);
  return new Promise((resolve) => {
    let buf = '';
    const sock = net.createConnection({ host: u.hostname.replace(/^\[|\]$/g, '') || '127.0.0.1', port: Number(u.port || 6379) });
    const done = (ok) => {
      sock.destroy();
      resolve(ok);
    };
    sock.setTimeout(timeoutMs, () => done(false));
    sock.on('error', () => done(false));
    sock.on('connect', () => sock.write('PING\r\n'));
    sock.on('data', (d) => {
      buf += d;
      if (buf.includes('\r\n')) done(/^(\+PONG|-NOAUTH)/.test(buf));
    });
  });
}

/** Makes sure Redis at `redisUrl` answers PING, starting the machine redis-server if it is local and down. */
async function ensureRedis(redisUrl = readEnv().redisUrl) {
  if (await redisPing(redisUrl)) {
    log(`redis: ok, ${redact(redisUrl)} answers`);
    return;
  }
  const u = new URL(redisUrl);
  if (!isLocalHost(u.hostname)) throw new Error(`redis: ${redact(redisUrl)} is not answering (not local, so not starting it)`);
  const t0 = Date.now();
  const res = await run('redis-server', [
    '--daemonize',
    'yes',
    '--bind',
    '127.0.0.1',
    '-::1',
    '--port',
    u.port || '6379',
    '--save',
    '',
    '--appendonly',
    'no',
    '--dir',
    '/var/lib/redis',
    '--logfile',
    '/var/log/redis/ci.log',
  ]).catch((err) => ({ status: -1, output: err.message }));
  if (res.status !== 0) throw new Error(`redis: could not start redis-server: ${res.output}`);
  if (!(await waitFor(() => redisPing(redisUrl), 10_000))) {
    throw new Error('redis: started redis-server but it does not answer PING after 10 s (see /var/log/redis/ci.log)');
  }
  log(`redis: started machine redis-server (${secs(t0)})`);
}

/**
 * Everything infra:up does. Postgres/Redis, the Redis Cluster and Kafka are brought up concurrently.
 * `redisCluster`: also the tests' Redis Cluster (npm test and the CLI; npm start needs only REDIS_URL).
 * `lanes`: also the test lanes 2..lanes (scripts/infra/lanes.js): a broker and a test database each.
 */
async function up({ redisCluster = false, lanes = 1 } = {}) {
  const env = readEnv();
  const t0 = Date.now();
  const extraLanes = Array.from({ length: Math.max(0, lanes - 1) }, (_, i) => laneInfra(i + 2, env));
  const results = await Promise.allSettled([
    (async () => {
      await ensurePostgres({ databaseUrl: env.databaseUrl });
      for (const name of [env.testDatabaseName, ...extraLanes.map((l) => l.testDatabaseName)]) {
        log(`postgres: ok, database ${name} ${(await ensureDatabase(databaseUrlFor(env.databaseUrl, name))) ? 'created' : 'exists'}`);
      }
      await ensureRedis(env.redisUrl);
    })(),
    redisCluster ? ensureRedisCluster(env) : undefined,
    (async () => {
      // The brokers share one jars directory: fetched once, before they start side by side.
      if (extraLanes.length) await ensureLibs(kafkaPaths(env.kafkaDir));
      await Promise.all(
        [{ kafkaBrokers: env.kafkaBrokers, kafkaDir: undefined }, ...extraLanes].map(async ({ kafkaBrokers, kafkaDir }) => {
          await ensureKafka({ brokers: kafkaBrokers, kafkaDir });
          await ensureTopics({ brokers: kafkaBrokers });
        }),
      );
    })(),
  ]);
  const errors = results.filter((r) => r.status === 'rejected').map((r) => r.reason.message || String(r.reason));
  if (errors.length) throw new Error(errors.join('\n'));
  log(`infra: up (${secs(t0)})`);
}

module.exports = { up, ensurePostgres, ensureDatabase, databaseUrlFor, ensureRedis, redisPing, ensureKafka, ensureTopics, ensureRedisCluster };

if (require.main === module) {
  const args = process.argv.slice(2);
  if (args.includes('--help') || args.includes('-h')) {
    console.log(HELP);
    process.exit(0);
  }
  const at = args.indexOf('--lanes');
  const lanes = at < 0 ? 1 : Number(args[at + 1]);
  const unknown = args.find((a, i) => a !== '--no-redis-cluster' && !(at >= 0 && (i === at || i === at + 1)));
  if (unknown || !Number.isInteger(lanes) || lanes < 1 || lanes > MAX_LANES) {
    console.error(unknown ? `infra:up: unknown argument ${unknown} (see --help)` : `infra:up: --lanes takes a whole number from 1 to ${MAX_LANES}`);
    process.exit(2);
  }
  up({ redisCluster: !args.includes('--no-redis-cluster'), lanes }).then(
    () => process.exit(0),
    (err) => {
      log(`infra:up failed: ${err.message}`);
      process.exit(1);
    },
  );
}
