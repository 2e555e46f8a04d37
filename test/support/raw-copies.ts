// Reads an account's raw copies straight from Redis (a single Redis or a Cluster): every key of
// the account under its hash tag, each stream's entries decoded, and each key's TTL.
import type { Cluster, Redis } from 'ioredis';
import { decodeRawEvent, type StoredEvent } from '../../services/gateway/src/data/raw-event-codec';
import { rawEventKeys } from '../../services/gateway/src/data/raw-event-store';

export interface RawCopy extends StoredEvent {
  key: string;
  entryId: string;
}

/** The account's raw-copy keys (streams) and their metadata hash, as they are in Redis. */
export async function rawKeysOf(redis: Redis | Cluster, accountId: string): Promise<string[]> {
  const prefix = rawEventKeys.bucketPrefix(accountId);
  const meta = rawEventKeys.meta(accountId);
  // The keys of one hash tag are on one node: scan the node that holds them.
  const node = 'nodes' in redis && typeof (redis as Cluster).nodes === 'function' ? await nodeOf(redis as Cluster, meta) : (redis as Redis);
  const found: string[] = [];
  let cursor = '0';
  do {
    const [next, keys] = await node.scan(cursor, 'MATCH', `glimpse:{a:${accountId}}:*`, 'COUNT', 1000);
    cursor = next;
    found.push(...keys.filter((k) => k.startsWith(prefix) || k === meta));
  } while (cursor !== '0');
  return found.sort();
}

async function nodeOf(cluster: Cluster, key: string): Promise<Redis> {
  const slot = Number(await cluster.call('CLUSTER', 'KEYSLOT', key));
  const address = cluster.slots[slot]?.[0];
  const node = cluster.nodes('master').find((n) => `${n.options.host}:${n.options.port}` === address);
  if (!node) throw new Error(`no master for slot ${slot}`);
  return node;
}

/** Every raw copy of the account, oldest first. */
export async function rawCopiesOf(redis: Redis | Cluster, accountId: string): Promise<RawCopy[]> {
  const streams = (await rawKeysOf(redis, accountId)).filter((k) => k !== rawEventKeys.meta(accountId));
  const copies: RawCopy[] = [];
  for (const key of streams) {
    for (const [entryId, fields] of await redis.xrange(key, '-', '+')) {
      const decoded = decodeRawEvent(fields[1]!);
      if (decoded) copies.push({ ...decoded, key, entryId });
    }
  }
  return copies;
}
