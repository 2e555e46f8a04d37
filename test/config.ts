// The one place test code reads the environment: where the infrastructure is, and what a child
// service process inherits. TEST_DATABASE_URL overrides the test database. Each jest worker is a
// test lane with a broker, a test database and a Redis database of its own (scripts/infra/lanes.js):
// applyTestEnvironment points a worker's environment at its lane.
import { DATABASE_ROLES, roleDatabaseUrl, type DatabaseService } from '@glimpse/config';

interface LaneInfra {
  kafkaBrokers: string[];
  redisUrl: string;
}
// eslint-disable-next-line @typescript-eslint/no-require-imports
const lanes = require('../scripts/infra/lanes.js') as {
  MAX_LANES: number;
  laneOf(env?: NodeJS.ProcessEnv): number;
  laneInfra(lane: number): LaneInfra;
};
export const MAX_LANES = lanes.MAX_LANES;
export function testDatabaseUrl(): string {
  return process.env.TEST_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/glimpse_test';
}
/** The test database as a service's own role (the migration creates the roles and grants each its schema). */
export function serviceDatabaseUrl(service: DatabaseService): string {
  return roleDatabaseUrl(testDatabaseUrl(), DATABASE_ROLES[service]);
}
export function redisUrl(): string {
  return process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
}
/** The tests' Redis Cluster (three masters, three replicas) that scripts/infra/up.js starts on 7001-7006. */
export function redisClusterNodes(): string[] {
  return (process.env.REDIS_CLUSTER_NODES ?? '127.0.0.1:7001,127.0.0.1:7002,127.0.0.1:7003,127.0.0.1:7004,127.0.0.1:7005,127.0.0.1:7006')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}
/** AUTH of the cluster's nodes, when REDIS_PASSWORD is set (infra:up then starts them with requirepass). */
export function redisPassword(): string | undefined {
  return process.env.REDIS_PASSWORD || undefined;
}
export function kafkaBrokers(): string[] {
  return (process.env.KAFKA_BROKERS ?? '127.0.0.1:9092').split(',');
}
/** A child process gets only PATH from the test's environment; the rest is spelled out. */
export function childPath(): string {
  return process.env.PATH ?? '/usr/bin:/bin';
}
/** The Chromium the browser tests drive (Debian's package by default). */
export function chromiumPath(): string {
  return process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
}
/** Lane `lane`'s test database: lane 1's is the test database, lane k's the same name with `_k`. */
export function laneTestDatabaseUrl(lane: number, base = testDatabaseUrl()): string {
  if (lane === 1) return base;
  const url = new URL(base);
  url.pathname = `/${decodeURIComponent(url.pathname.slice(1))}_${lane}`;
  return url.toString();
}

/**
 * Points this jest worker's environment at its lane (once per worker process: the environment it
 * changes is the worker's, which later test files in the same worker see already changed).
 */
function applyLane(): void {
  const lane = lanes.laneOf(process.env);
  // Applied once: a child process inherits the lane's settings (GLIMPSE_TEST_LANE alone, as given
  // to a run in band, is a lane still to apply).
  if (lane === 1 || process.env.GLIMPSE_TEST_LANE_APPLIED === String(lane)) return;
  const infra = lanes.laneInfra(lane);
  process.env.TEST_DATABASE_URL = laneTestDatabaseUrl(lane);
  process.env.KAFKA_BROKERS = infra.kafkaBrokers.join(',');
  process.env.REDIS_URL = infra.redisUrl;
  process.env.GLIMPSE_TEST_LANE = String(lane);
  process.env.GLIMPSE_TEST_LANE_APPLIED = String(lane);
}

/** The lane a run in band was given with GLIMPSE_TEST_LANE, or undefined. */
export function pinnedLane(): number | undefined {
  return process.env.GLIMPSE_TEST_LANE === undefined ? undefined : lanes.laneOf(process.env);
}

/** Points the services started inside a test process at its lane's test database, quietly. */
export function applyTestEnvironment(): void {
  applyLane();
  process.env.DATABASE_URL = testDatabaseUrl();
  process.env.LOG_LEVEL = process.env.LOG_LEVEL ?? 'silent';
}
/**
 * Sets these environment variables (undefined removes one) for code configured by its environment,
 * such as the CLI; the function returned puts back what was there before.
 */
export function setEnv(values: Record<string, string | undefined>): () => void {
  const before = Object.fromEntries(Object.keys(values).map((name) => [name, process.env[name]]));
  const apply = (next: Record<string, string | undefined>) => {
    for (const [name, value] of Object.entries(next)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  };
  apply(values);
  return () => apply(before);
}
