// Test lanes: `npm test` runs its integration test files in several jest workers at once, and each
// worker (lane) has infrastructure of its own, so that one file's consumer groups, topics and
// whole-table counts never meet another's: lane 1 is the ordinary local infrastructure (the broker
// on KAFKA_BROKERS, the glimpse_test database, Redis database 0); lane k > 1 has its own single-node
// broker (port + 10·(k−1), data in INFRA_DIR/kafka-lane-k), its own database glimpse_test_k and
// Redis database k−1. Shared by every lane: the Postgres and Redis servers, the roles, the tests'
// Redis Cluster (keys are per account) and the broker jars.
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const { readEnv } = require('./env');

/** The most lanes `npm test` runs; each lane > 1 is a broker JVM (512 MB heap at most). */
const MAX_LANES = 6;
const PORT_STEP = 10;
const LANE_DIR = /^kafka-lane-(\d+)$/;

/**
 * The lane a jest worker is (JEST_WORKER_ID counts from 1; a run in band is lane 1), or
 * GLIMPSE_TEST_LANE when set: a run in band of its own beside another's (jest sets JEST_WORKER_ID
 * to 1 in band, so two such runs would otherwise share lane 1).
 */
function laneOf(env = process.env) {
  const id = Number.parseInt(env.GLIMPSE_TEST_LANE ?? env.JEST_WORKER_ID ?? '1', 10);
  return Number.isInteger(id) && id >= 1 ? id : 1;
}

/**
 * Where lane `lane` finds its infrastructure, derived from the ordinary settings (readEnv's).
 * @returns {{ lane: number, kafkaBrokers: string[], kafkaDir: string, testDatabaseName: string, redisUrl: string }}
 */
function laneInfra(lane, env = readEnv()) {
  if (!Number.isInteger(lane) || lane < 1 || lane > MAX_LANES) throw new Error(`test lane ${lane}: expected 1 to ${MAX_LANES}`);
  if (lane === 1) {
    return { lane, kafkaBrokers: env.kafkaBrokers, kafkaDir: env.kafkaDir, testDatabaseName: env.testDatabaseName, redisUrl: env.redisUrl };
  }
  const broker = env.kafkaBrokers[0];
  const colon = broker.lastIndexOf(':');
  const redis = new URL(env.redisUrl);
  redis.pathname = `/${lane - 1}`;
  return {
    lane,
    kafkaBrokers: [`${broker.slice(0, colon)}:${Number(broker.slice(colon + 1)) + PORT_STEP * (lane - 1)}`],
    kafkaDir: path.join(env.infraDir, `kafka-lane-${lane}`),
    testDatabaseName: `${env.testDatabaseName}_${lane}`,
    redisUrl: redis.toString(),
  };
}

/** The lanes' broker directories that exist under INFRA_DIR (what infra:down stops and purges). */
function laneKafkaDirs(env = readEnv()) {
  if (!fs.existsSync(env.infraDir)) return [];
  return fs
    .readdirSync(env.infraDir)
    .filter((name) => LANE_DIR.test(name))
    .map((name) => path.join(env.infraDir, name));
}

module.exports = { MAX_LANES, laneOf, laneInfra, laneKafkaDirs };
