// The gateway's one Redis client: a single Redis (REDIS_URL, the embedded default) or, when
// REDIS_CLUSTER_NODES is set, an ioredis Cluster. Every user of it (raw copies, rate limits,
// idempotency keys, the cookieless salt) sends only commands whose keys share one hash tag, so the
// same code runs on both.
//
// Both fail fast: no offline queue, no retries of a command, a 500 ms bound on each. A caller
// decides what a failure means (fail soft for raw copies, a local window for limits, …); the
// client reconnects on its own, and a Cluster re-reads its slots when a replica is promoted.
import calculateSlot from 'cluster-key-slot';
import { Cluster, Redis } from 'ioredis';

export type RedisClient = Redis | Cluster;

export interface RedisSettings {
  REDIS_URL: string;
  /** host:port of some cluster nodes (the rest are discovered); a Cluster when given. */
  REDIS_CLUSTER_NODES?: { host: string; port: number }[];
  REDIS_PASSWORD?: string;
}

const COMMAND_TIMEOUT_MS = 500;
/** Reconnect for ever, at most every 2 s. */
const retry = (times: number) => Math.min(times * 200, 2000);

export function createRedisClient(settings: RedisSettings): RedisClient {
  const nodes = settings.REDIS_CLUSTER_NODES;
  if (nodes && nodes.length > 0) {
    return new Cluster(nodes, {
      enableOfflineQueue: false,
      // Not auto-pipelined: a pipeline of a Cluster waits on the slots of a dead master instead of
      // failing its commands (a request hung through a failover when it was on).
      enableAutoPipelining: false,
      lazyConnect: true,
      clusterRetryStrategy: retry,
      // A MOVED or ASK is followed (the slots moved). A command to a master that is gone is tried
      // once more after 50 ms and a re-read of the slots (a promotion may have come), then fails:
      // the chaos suite measured 250-510 ms per command with ioredis's defaults while a slot had
      // no master, four times per POST /events. The slots are re-read every 2 s as well.
      retryDelayOnFailover: 50,
      retryDelayOnClusterDown: 50,
      retryDelayOnTryAgain: 50,
      maxRedirections: 2,
      slotsRefreshTimeout: 1000,
      slotsRefreshInterval: 2000,
      redisOptions: {
        password: settings.REDIS_PASSWORD,
        maxRetriesPerRequest: 0,
        commandTimeout: COMMAND_TIMEOUT_MS,
        connectTimeout: 2000,
      },
    });
  }
  return new Redis(settings.REDIS_URL, {
    password: settings.REDIS_PASSWORD,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    commandTimeout: COMMAND_TIMEOUT_MS,
    enableAutoPipelining: true,
    lazyConnect: true,
    retryStrategy: retry,
  });
}

/** The master nodes to ask about memory: the client itself, or each master of the cluster. */
export function masters(client: RedisClient): Redis[] {
  return client instanceof Cluster ? client.nodes('master') : [client];
}

/** The address of the master that holds `key`, as `host:port` (a single Redis: always `single`). */
export function masterAddressOf(client: RedisClient, key: string): string {
  if (!(client instanceof Cluster)) return 'single';
  return client.slots[calculateSlot(key)]?.[0] ?? 'unknown';
}

/** A master's address as masterAddressOf names it. */
export function addressOf(client: RedisClient, node: Redis): string {
  return client instanceof Cluster ? `${node.options.host}:${node.options.port}` : 'single';
}
