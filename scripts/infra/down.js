#!/usr/bin/env node
// infra:down — idempotently stops the Kafka broker and the Redis Cluster nodes that infra:up started; the machine's Postgres and Redis are left alone.
'use strict';
const fs = require('node:fs');
const { readEnv } = require('./env');
const { log, shortPath } = require('./util');
const { stopKafka, isKafkaUp, kafkaPaths } = require('./kafka-ctl');
const { stopRedisCluster } = require('./redis-cluster');
const { laneKafkaDirs } = require('./lanes');

const HELP = `Usage: node scripts/infra/down.js [--purge] [--help]

Stops the Kafka broker started by infra:up (pid file in INFRA_DIR/kafka, default <repo>/.infra) and
the test lanes' brokers (INFRA_DIR/kafka-lane-*, started by npm test's workers 2..N):
SIGTERM, then SIGKILL if it has not exited after 30 s; and the Redis Cluster's six redis-server
processes (pid files in INFRA_DIR/redis-cluster/<port>): SIGTERM, SIGKILL after 10 s. Only recorded
pids still running redis-server on their port are signalled. Postgres and Redis (REDIS_URL) are
machine services and are left running.
  --purge   also delete the brokers' data dirs (topics and messages; next infra:up re-formats) and
            the cluster's node directories (next infra:up creates the cluster again)`;

async function down({ purge = false } = {}) {
  const env = readEnv();
  const res = await stopKafka();
  if (res.stopped) log(`kafka: stopped broker pid ${res.pid} (${(res.ms / 1000).toFixed(1)} s)`);
  else log(`kafka: not running (${res.reason})`);
  if (await isKafkaUp(env.kafkaBrokers)) {
    log(`kafka: note: a broker not started by infra:up still answers on ${env.kafkaBrokers.join(',')}; left alone`);
  }
  // The test lanes' brokers (npm test's workers 2..N; scripts/infra/lanes.js), each by its pid file.
  for (const kafkaDir of laneKafkaDirs(env)) {
    const lane = await stopKafka({ kafkaDir });
    if (lane.stopped) log(`kafka: stopped ${shortPath(kafkaDir)} broker pid ${lane.pid} (${(lane.ms / 1000).toFixed(1)} s)`);
  }
  await stopRedisCluster({ purge }, env);
  if (purge) {
    for (const kafkaDir of [env.kafkaDir, ...laneKafkaDirs(env)]) {
      const { data } = kafkaPaths(kafkaDir);
      fs.rmSync(data, { recursive: true, force: true });
      log(`kafka: purged ${shortPath(data)}`);
    }
  }
  log('postgres, redis: machine services, left running');
}

module.exports = { down };

if (require.main === module) {
  const args = process.argv.slice(2);
  if (args.includes('--help') || args.includes('-h')) {
    console.log(HELP);
    process.exit(0);
  }
  const unknown = args.find((a) => a !== '--purge');
  if (unknown) {
    console.error(`infra:down: unknown argument ${unknown} (see --help)`);
    process.exit(2);
  }
  down({ purge: args.includes('--purge') }).then(
    () => process.exit(0),
    (err) => {
      log(`infra:down failed: ${err.message}`);
      process.exit(1);
    },
  );
}
