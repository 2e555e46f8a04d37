// The only place the local-infra scripts read environment variables; everything else takes these values as arguments.
'use strict';
const path = require('node:path');

const REPO_ROOT = path.resolve(__dirname, '..', '..');
/** The services' local-development defaults (the config module reads the same file). */
const DEFAULTS = require('../../shared/config/src/defaults.json');
const DEFAULT_REDIS_CLUSTER_NODES = [7001, 7002, 7003, 7004, 7005, 7006].map((p) => `127.0.0.1:${p}`).join(',');
const LOCAL_HOSTS = new Set(['', 'localhost', '127.0.0.1', '::1', '[::1]']);

function readEnv(env = process.env) {
  const infraDir = path.resolve(REPO_ROOT, env.INFRA_DIR || '.infra');
  return {
    repoRoot: REPO_ROOT,
    infraDir,
    kafkaDir: path.join(infraDir, 'kafka'),
    databaseUrl: env.DATABASE_URL || DEFAULTS.DATABASE_URL,
    testDatabaseName: 'glimpse_test',
    redisUrl: env.REDIS_URL || DEFAULTS.REDIS_URL,
    /** The test infrastructure's Redis Cluster (three masters, three replicas); `npm start` does not use it. */
    redisClusterNodes: (env.REDIS_CLUSTER_NODES || DEFAULT_REDIS_CLUSTER_NODES)
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
    redisClusterDir: path.join(infraDir, 'redis-cluster'),
    /** AUTH of the cluster's nodes (requirepass/masterauth when infra:up starts them); unset: none. */
    redisPassword: env.REDIS_PASSWORD || undefined,
    chromiumPath: env.CHROMIUM_PATH || '/usr/bin/chromium',
    kafkaBrokers: (env.KAFKA_BROKERS || DEFAULTS.KAFKA_BROKERS)
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
  };
}

/** True if `host` is this machine, i.e. a service there may be started by these scripts. */
const isLocalHost = (host) => LOCAL_HOSTS.has(String(host).toLowerCase());

/**
 * The database of `url` as a service's own role (`gateway`, `playbook`, `enrichment`, `webhooks`),
 * without a password: local trust authentication. Each service may use only its own schema.
 */
function serviceDatabaseUrl(url, service) {
  const role = DEFAULTS.DATABASE_ROLES[service];
  if (!role) throw new Error(`no database role for service ${service}`);
  const parsed = new URL(url);
  parsed.username = role;
  parsed.password = '';
  return parsed.toString();
}

module.exports = { REPO_ROOT, DEFAULTS, DEFAULT_REDIS_CLUSTER_NODES, readEnv, isLocalHost, serviceDatabaseUrl };
